import type { LoaderFunctionArgs } from '@remix-run/node';
import { fileAnswer, getResponse } from '~/models/forms/forms.server';
import { readStoredFile } from '~/models/storage/files.server';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** A file a visitor uploaded with a response: served as a download in a sandbox, like message attachments. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/enabled', await requirePermission(request, 'manage_contacts'));
  const formId = parseRouteId(params.id);
  const id = parseRouteId(params.responseId);
  const response = formId && id ? await getResponse({ accountId: ctx.account.id, formId, id }) : undefined;
  const file = response ? fileAnswer(response, params.key ?? '') : undefined;
  const bytes = file ? await readStoredFile(file.storageKey) : undefined;
  if (!file || !bytes) throw new Response('Not Found', { status: 404 });
  return new Response(new Uint8Array(bytes), {
    headers: {
      'Content-Type': file.contentType,
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-store',
    },
  });
}
