import type { ActionFunctionArgs } from '@remix-run/node';
import { handleGoogleBusinessWebhook } from '~/models/channels/google-business.server';

/** POST /webhooks/google-business/{inboxId}: messages in Google Business Messages' format (ingestion only, ADR 020). */
export async function action({ request, params }: ActionFunctionArgs) {
  return handleGoogleBusinessWebhook(request, params.inboxId);
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
