import type { ActionFunctionArgs } from '@remix-run/node';
import { handleTwilioStatus } from '~/models/channels/twilio-webhooks.server';

/** POST /webhooks/twilio/{inboxId}/status: Twilio's StatusCallback for the SMS Parley sent (signed like the inbound webhook). */
export async function action({ request, params }: ActionFunctionArgs) {
  return handleTwilioStatus(request, params.inboxId);
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
