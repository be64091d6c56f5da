import type { ActionFunctionArgs } from '@remix-run/node';
import { handlePipedriveWebhook } from '~/models/integrations/pipedrive/sync.server';
import { parseRouteId } from '~/utils/route-id';

/** POST /webhooks/integrations/pipedrive/{connectionId}: changed persons (webhooks v2), HTTP Basic checked (ADR 116). */
export async function action({ request, params }: ActionFunctionArgs) {
  const id = parseRouteId(params.connectionId);
  if (id === null) return new Response('Not Found', { status: 404 });
  const rawBody = await request.text();
  if (rawBody.length > 1024 * 1024) return new Response('Payload too large', { status: 413 });
  const out = await handlePipedriveWebhook({ connectionId: id, rawBody, headers: request.headers });
  return new Response(out.text, { status: out.status });
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
