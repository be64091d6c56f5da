import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import {
  connectMailOAuth,
  isMailOAuthConfigured,
  MAIL_OAUTH_ENV,
  MAIL_OAUTH_LABEL,
  mailConsentUrl,
  MailOAuthError,
  parseMailOAuthProvider,
  signMailOAuthState,
  verifyMailOAuthState,
} from '~/models/email/oauth-mail.server';
import { parseRowId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * Settings → Emails → "Connect with Google / Microsoft 365" (ADR 158). The form posts here and is sent on to the
 * provider's consent page; the provider sends the admin back here (GET, with `code` and the signed `state`), and the
 * mailbox becomes an inbox that reads over IMAP and sends over SMTP with XOAUTH2.
 */
const LIST = '/settings/emails';

function providerOf(params: { provider?: string }) {
  const provider = parseMailOAuthProvider(params.provider);
  if (!provider) throw new Response('Not Found', { status: 404 });
  return provider;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_emails');
  const provider = providerOf(params);
  const label = MAIL_OAUTH_LABEL[provider];
  const url = new URL(request.url);
  const error = url.searchParams.get('error');
  if (error)
    return redirectWithToast(LIST, {
      type: 'error',
      text: error === 'access_denied' ? `${label} was not connected: access was denied.` : `${label} was not connected: ${error.slice(0, 100)}`,
    });
  const code = url.searchParams.get('code');
  if (!code) return redirect(LIST);
  if (!isMailOAuthConfigured(provider))
    return redirectWithToast(LIST, { type: 'error', text: `${label} is not set up on this server: the operator must set ${MAIL_OAUTH_ENV[provider]}.` });
  const state = verifyMailOAuthState(url.searchParams.get('state') ?? '', { accountId: ctx.account.id, userId: ctx.user.id, provider });
  if (!state) throw new Response(`The ${label} sign-in link has expired or was not started here. Please connect again.`, { status: 400 });
  let inbox;
  try {
    inbox = await connectMailOAuth({
      accountId: ctx.account.id,
      actorId: ctx.user.id,
      provider,
      code: code.slice(0, 2048),
      redirectUri: accountUrl(request, ctx.account.domain, `${LIST}/connect/${provider}`),
      inboxId: state.inboxId,
    });
  } catch (err) {
    if (err instanceof MailOAuthError) return redirectWithToast(LIST, { type: 'error', text: `${label} was not connected. ${err.message}` });
    throw err;
  }
  return redirectWithToast(`${LIST}/${inbox.id}`, `${inbox.email} connected with ${label}`);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_emails');
  const provider = providerOf(params);
  const form = await request.formData();
  if (form.get('intent') !== 'connect') throw new Response('Unknown intent', { status: 400 });
  if (!isMailOAuthConfigured(provider))
    return redirectWithToast(LIST, {
      type: 'error',
      text: `${MAIL_OAUTH_LABEL[provider]} is not set up on this server: the operator must set ${MAIL_OAUTH_ENV[provider]}.`,
    });
  // Reconnect: the inbox whose grant is replaced (else the mailbox's own inbox, or a new one).
  const inboxId = parseRowId(form.get('inboxId'));
  const state = signMailOAuthState({ accountId: ctx.account.id, userId: ctx.user.id, provider, inboxId });
  return redirect(mailConsentUrl({ provider, redirectUri: accountUrl(request, ctx.account.domain, `${LIST}/connect/${provider}`), state }));
}
