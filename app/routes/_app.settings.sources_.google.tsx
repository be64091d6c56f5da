import type { LoaderFunctionArgs } from '@remix-run/node';
import { connectGoogleSource, GoogleConnectError, verifyGoogleSourceState } from '~/models/reviews/reviews.server';
import { requireFeature, requirePermission } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * Google's redirect back after the consent page of a Google Business Profile source (ADR 096): `state` must be the
 * one signed for this account and user within ten minutes; the code is exchanged and the tokens kept sealed.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const url = new URL(request.url);
  const sourceId = verifyGoogleSourceState(url.searchParams.get('state') ?? '', { accountId: ctx.account.id, userId: ctx.user.id });
  if (!sourceId) throw new Response('The Google sign-in link has expired or was not started here. Please connect again.', { status: 400 });
  const back = `/settings/sources?source=${sourceId}`;
  const error = url.searchParams.get('error');
  if (error)
    return redirectWithToast(back, {
      type: 'error',
      text: error === 'access_denied' ? 'Google was not connected: access was denied.' : `Google was not connected: ${error.slice(0, 100)}`,
    });
  const code = url.searchParams.get('code');
  if (!code || code.length > 2048) throw new Response('Google sent no authorization code. Please connect again.', { status: 400 });
  try {
    const row = await connectGoogleSource({
      accountId: ctx.account.id,
      actorId: ctx.user.id,
      sourceId,
      code,
      redirectUri: accountUrl(request, ctx.account.domain, '/settings/sources/google'),
    });
    if (!row) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof GoogleConnectError) return redirectWithToast(back, { type: 'error', text: `Google was not connected. ${err.message}` });
    throw err;
  }
  return redirectWithToast(back, 'Google connected');
}
