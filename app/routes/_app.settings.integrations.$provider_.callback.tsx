import type { LoaderFunctionArgs } from '@remix-run/node';
import { finishAsanaConnect } from '~/models/integrations/asana/asana.server';
import { finishClickupConnect } from '~/models/integrations/clickup/clickup.server';
import { finishGithubConnect } from '~/models/integrations/github/github.server';
import { IntegrationError } from '~/models/integrations/http.server';
import { isProviderId, PROVIDERS } from '~/models/integrations/providers';
import { ConnectRefusedError, finishShopifyConnect } from '~/models/integrations/shopify/shopify.server';
import { finishHubspotConnect } from '~/models/integrations/hubspot/hubspot.server';
import { finishPipedriveConnect } from '~/models/integrations/pipedrive/pipedrive.server';
import { requireFeature, requirePermission } from '~/utils/session.server';
import { accountUrl, bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Where the provider sends the agent back after consent: `code` and the signed `state` (ADR 078). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const provider = params.provider;
  if (provider !== 'shopify' && provider !== 'github' && provider !== 'asana' && provider !== 'clickup' && provider !== 'hubspot' && provider !== 'pipedrive')
    throw new Response('Not Found', { status: 404 });
  const label = PROVIDERS[provider].label;
  const back = `/settings/integrations/${provider}`;
  const url = new URL(request.url);
  const error = url.searchParams.get('error');
  if (error)
    return redirectWithToast(back, {
      type: 'error',
      text: error === 'access_denied' ? `${label} was not connected: access was denied.` : `${label} was not connected: ${error.slice(0, 100)}`,
    });
  if (!url.searchParams.get('code')) throw new Response(`${label} sent no authorization code. Please connect again.`, { status: 400 });
  const who = { accountId: ctx.account.id, userId: ctx.user.id, params: url.searchParams };
  try {
    if (provider === 'shopify') await finishShopifyConnect({ ...who, webhookAddress: bareUrl(request, '/webhooks/integrations/shopify') });
    else if (provider === 'asana') await finishAsanaConnect({ ...who, redirectUri: accountUrl(request, ctx.account.domain, `/settings/integrations/asana/callback`) });
    else if (provider === 'clickup') await finishClickupConnect(who);
    else if (provider === 'pipedrive') await finishPipedriveConnect({ ...who, redirectUri: accountUrl(request, ctx.account.domain, '/settings/integrations/pipedrive/callback') });
    else if (provider === 'hubspot')
      await finishHubspotConnect({ ...who, redirectUri: accountUrl(request, ctx.account.domain, '/settings/integrations/hubspot/callback') });
    else await finishGithubConnect({ ...who, redirectUri: accountUrl(request, ctx.account.domain, `/settings/integrations/github/callback`) });
  } catch (err) {
    if (err instanceof ConnectRefusedError) throw new Response(err.message, { status: 400 });
    if (err instanceof IntegrationError) return redirectWithToast(back, { type: 'error', text: `${label} was not connected. ${err.message}` });
    throw err;
  }
  return redirectWithToast(back, `${label} Connected`);
}
