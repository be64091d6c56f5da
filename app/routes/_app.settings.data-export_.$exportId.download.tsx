import type { LoaderFunctionArgs } from '@remix-run/node';
import { createReadableStreamFromReadable } from '@remix-run/node';
import { claimExportDownload, finishExportDownload } from '~/models/operations/account-export.server';
import { getFileStorage } from '~/models/storage/files.server';
import { parseRouteId } from '~/utils/route-id';
import { requireAccountOwner } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const BACK = '/settings/data-export';

/**
 * The one download of an account export (ADR 153): the claim marks it downloaded before a byte leaves, so a second
 * request (or a second tab) is refused with the reason; once the file has been sent, or the transfer broke off, the
 * archive is deleted.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireAccountOwner(request);
  const id = parseRouteId(params.exportId);
  if (id === null) throw new Response('Not Found', { status: 404 });
  const claim = await claimExportDownload({ accountId: ctx.account.id, id });
  if (!claim.ok) {
    if (claim.status === 'missing') throw new Response('Not Found', { status: 404 });
    return redirectWithToast(BACK, { type: 'error', text: claim.message });
  }
  const scope = { accountId: ctx.account.id, id, storageKey: claim.storageKey };
  const source = await getFileStorage().getStream(claim.storageKey);
  if (!source) {
    await finishExportDownload(scope);
    return redirectWithToast(BACK, { type: 'error', text: 'The archive file is missing from the storage. Request a new export.' });
  }
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    void finishExportDownload(scope);
  };
  source.once('close', finish);
  source.once('end', finish);
  source.once('error', finish);
  return new Response(createReadableStreamFromReadable(source), {
    headers: {
      'Content-Type': 'application/gzip',
      'Content-Disposition': `attachment; filename="${claim.filename}"`,
      ...(claim.sizeBytes ? { 'Content-Length': String(claim.sizeBytes) } : {}),
      'Cache-Control': 'no-store',
    },
  });
}
