import type { LoaderFunctionArgs } from '@remix-run/node';
import { attachmentResponse, readAttachment } from '~/models/inbox/attachments.server';
import { parseRouteId } from '~/utils/route-id';
import { getAppContext } from '~/utils/session.server';

/**
 * A stored attachment, for signed-in users of the account it belongs to. Everyone else, and any id outside
 * the account, gets the same 404.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await getAppContext(request);
  if (!ctx) throw new Response('Not Found', { status: 404 });
  const id = parseRouteId(params.id);
  if (id === null) throw new Response('Not Found', { status: 404 });
  const found = await readAttachment({ accountId: ctx.account.id, id });
  if (!found) throw new Response('Not Found', { status: 404 });
  return attachmentResponse(found);
}
