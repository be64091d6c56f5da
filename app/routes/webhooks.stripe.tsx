import type { ActionFunctionArgs } from '@remix-run/node';
import { applyWebhookEvent } from '~/models/billing/billing.server';
import { getBillingProvider, WebhookRejectedError } from '~/models/billing/provider.server';
import { getConfig } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';

/**
 * POST /webhooks/stripe: Stripe's events for the installation (ADR 073). The signature and its timestamp are the
 * authentication: a forged, altered or replayed delivery gets 400 and changes nothing; a repeated one gets 200
 * and changes nothing. Billing off: 404, like every billing route.
 */
export async function action({ request }: ActionFunctionArgs) {
  const provider = getConfig().billing ? getBillingProvider() : null;
  if (!provider) return new Response('Not Found', { status: 404 });
  const body = await request.text();
  let event;
  try {
    event = provider.parseWebhook({ body, headers: request.headers });
  } catch (err) {
    if (err instanceof WebhookRejectedError) {
      getLogger().warn({ reason: err.message }, 'stripe webhook refused');
      return new Response(err.message, { status: 400 });
    }
    throw err;
  }
  const outcome = await applyWebhookEvent(event);
  return Response.json({ received: true, outcome });
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
