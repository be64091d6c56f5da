import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { handleTwitterCrc, handleTwitterWebhook } from '~/models/channels/twitter.server';

/** GET: the provider's subscription check; POST: its signed events (ADR 020). Bad input is a 4xx, never a 500. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleTwitterCrc(request, params.inboxId);
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, POST' } });
  return handleTwitterWebhook(request, params.inboxId);
}
