import type { LoaderFunctionArgs } from '@remix-run/node';
import { getAvatar } from '~/models/users/profile.server';
import { getAppContext } from '~/utils/session.server';
import { parseRouteId } from '~/utils/route-id';

/**
 * A user's avatar, for signed-in users of the same account only. Everyone else, and any id outside the
 * account, gets the same 404: the route does not say whether a user exists.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await getAppContext(request);
  if (!ctx) throw new Response('Not Found', { status: 404 });
  const userId = parseRouteId(params.id) ?? 0;
  if (!Number.isSafeInteger(userId) || userId <= 0) throw new Response('Not Found', { status: 404 });
  const avatar = await getAvatar({ accountId: ctx.account.id, userId });
  if (!avatar) throw new Response('Not Found', { status: 404 });
  return new Response(new Uint8Array(avatar.bytes), {
    headers: {
      // The type was read from the bytes on upload, never taken from the browser.
      'Content-Type': avatar.type,
      'Content-Length': String(avatar.bytes.byteLength),
      'Cache-Control': 'private, no-cache',
      'Last-Modified': avatar.updatedAt.toUTCString(),
      'Content-Security-Policy': "default-src 'none'",
    },
  });
}
