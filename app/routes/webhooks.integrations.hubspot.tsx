import type { ActionFunctionArgs } from '@remix-run/node';
import { handleHubspotWebhook } from '~/models/integrations/hubspot/sync.server';

/** POST /webhooks/integrations/hubspot: the app's contact.propertyChange events, X-HubSpot-Signature-v3 verified (ADR 116). */
export async function action({ request }: ActionFunctionArgs) {
  const rawBody = await request.text();
  if (rawBody.length > 1024 * 1024) return new Response('Payload too large', { status: 413 });
  const out = await handleHubspotWebhook({ method: request.method, uri: request.url, rawBody, headers: request.headers });
  return new Response(out.text, { status: out.status });
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
