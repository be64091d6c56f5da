import type { ActionFunctionArgs } from '@remix-run/node';
import { handleShopifyWebhook } from '~/models/integrations/shopify/shopify.server';

/** POST /webhooks/integrations/shopify: Shopify's deliveries, HMAC-verified before anything is read (ADR 079). */
export async function action({ request }: ActionFunctionArgs) {
  const rawBody = await readBounded(request);
  if (rawBody === null) return new Response('Payload too large', { status: 413 });
  const out = await handleShopifyWebhook({ rawBody, headers: request.headers });
  return new Response(out.text, { status: out.status });
}

async function readBounded(request: Request) {
  const text = await request.text();
  return text.length > 1024 * 1024 ? null : text;
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
