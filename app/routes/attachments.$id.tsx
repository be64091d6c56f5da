import type { LoaderFunctionArgs } from '@remix-run/node';
import { readAttachment } from '~/models/inbox/attachments.server';
import { parseRouteId } from '~/utils/route-id';
import { getAppContext } from '~/utils/session.server';

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 one. */
function contentDisposition(filename: string) {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * A stored attachment, for signed-in users of the account it belongs to. Everyone else, and any id outside
 * the account, gets the same 404. It is always a download (never rendered as a page of this origin), typed by
 * what its bytes are; `X-Content-Type-Options: nosniff` comes with every response (helmet, server/app.ts).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await getAppContext(request);
  if (!ctx) throw new Response('Not Found', { status: 404 });
  const id = parseRouteId(params.id);
  if (id === null) throw new Response('Not Found', { status: 404 });
  const found = await readAttachment({ accountId: ctx.account.id, id });
  if (!found) throw new Response('Not Found', { status: 404 });
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      'Content-Type': found.attachment.contentType,
      'Content-Length': String(found.bytes.byteLength),
      'Content-Disposition': contentDisposition(found.attachment.filename),
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, max-age=3600',
    },
  });
}
