import type { LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { connectGoogleCalendar, signOAuthState, verifyOAuthState } from '~/models/meetings/calendars.server';
import { googleConsentUrl, GoogleCalendarError, isGoogleConfigured } from '~/models/meetings/google-calendar.server';
import { accountUrl } from '~/utils/tenant.server';
import { requireFeature, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * meetings/googleConnect: without `code`, sends the agent to Google's consent page; Google sends them back here with
 * `code` and the signed `state`, and the tokens are kept for this agent.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  if (!isGoogleConfigured()) return redirectWithToast('/settings/meetings', { type: 'error', text: 'Google Calendar is not set up on this server.' });
  const url = new URL(request.url);
  const redirectUri = accountUrl(request, ctx.account.domain, '/settings/meetings/google');
  const error = url.searchParams.get('error');
  if (error) return redirectWithToast('/settings/meetings', { type: 'error', text: error === 'access_denied' ? 'Google Calendar was not connected: access was denied.' : `Google Calendar was not connected: ${error.slice(0, 100)}` });
  const code = url.searchParams.get('code');
  if (!code) return redirect(googleConsentUrl({ redirectUri, state: signOAuthState({ accountId: ctx.account.id, userId: ctx.user.id }) }));
  if (!verifyOAuthState(url.searchParams.get('state') ?? '', { accountId: ctx.account.id, userId: ctx.user.id })) throw new Response('The Google sign-in link has expired or was not started here. Please connect again.', { status: 400 });
  try {
    await connectGoogleCalendar({ accountId: ctx.account.id, userId: ctx.user.id, code: code.slice(0, 2048), redirectUri });
  } catch (err) {
    if (err instanceof GoogleCalendarError) return redirectWithToast('/settings/meetings', { type: 'error', text: `Google Calendar was not connected. ${err.message}` });
    throw err;
  }
  return redirectWithToast('/settings/meetings', 'Google Calendar connected');
}
