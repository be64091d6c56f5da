import type { ActionFunctionArgs } from '@remix-run/node';
import { handleCustomSmsWebhook } from '~/models/channels/custom-sms-webhooks.server';

/** POST /webhooks/sms/{inboxId}: a custom SMS gateway's messages and delivery reports (docs/custom-sms.md). */
export async function action({ request, params }: ActionFunctionArgs) {
  return handleCustomSmsWebhook(request, params.inboxId);
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
