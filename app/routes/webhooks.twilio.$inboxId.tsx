import type { ActionFunctionArgs } from '@remix-run/node';
import { handleTwilioInbound } from '~/models/channels/twilio-webhooks.server';

/**
 * POST /webhooks/twilio/{inboxId}: Twilio's incoming-message webhook, signed with X-Twilio-Signature. Answers
 * empty TwiML; 403 on a bad signature (nothing stored), 404 for an unknown inbox, 400 for a malformed body.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  return handleTwilioInbound(request, params.inboxId);
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
