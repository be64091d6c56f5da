import type { ActionFunctionArgs } from '@remix-run/node';
import { handleAsanaWebhook } from '~/models/integrations/asana/asana.server';
import { parseRouteId } from '~/utils/route-id';

/** POST /webhooks/integrations/asana/{connectionId}/{taskGid}: the X-Hook-Secret handshake, then signed events (ADR 100). */
export async function action({ request, params }: ActionFunctionArgs) {
  const id = parseRouteId(params.connectionId);
  if (id === null) return new Response('Not Found', { status: 404 });
  const rawBody = await request.text();
  if (rawBody.length > 1024 * 1024) return new Response('Payload too large', { status: 413 });
  const out = await handleAsanaWebhook({ connectionId: id, taskGid: params.taskGid ?? '', rawBody, headers: request.headers });
  return new Response(out.text, { status: out.status, headers: out.headers });
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
