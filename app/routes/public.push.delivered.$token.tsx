import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { recordPushDelivered } from '~/models/campaigns/push.server';

/**
 * A push notification was shown (ADR 083): the service worker posts to the signed link the payload carried. No
 * body, no cookies (the service worker runs on the customer's site, so the answer is CORS-open and says nothing).
 */
const HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' };

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return new Response(null, { status: 405, headers: HEADERS });
  const ok = await recordPushDelivered(params.token ?? '');
  return new Response(null, { status: ok ? 204 : 404, headers: HEADERS });
}

export async function loader({ request }: LoaderFunctionArgs) {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...HEADERS, 'Access-Control-Allow-Methods': 'POST' } });
  return new Response('Not Found', { status: 404 });
}
