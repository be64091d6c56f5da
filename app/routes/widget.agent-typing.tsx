import type { ActionFunctionArgs } from '@remix-run/node';
import { publishAgentTyping } from '~/models/channels/widget.server';
import { getConversation } from '~/models/inbox/conversations.server';
import { requireUser } from '~/utils/session.server';
import { parseRowId } from '~/utils/route-id';

/** An agent's "typing…" for the visitor of a web-chat conversation of their account (same-origin fetch, CSRF-checked). */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const formData = await request.formData();
  const conversationId = parseRowId(formData.get('conversationId')) ?? 0;
  if (!Number.isSafeInteger(conversationId) || conversationId <= 0) throw new Response('Bad Request', { status: 400 });
  const found = await getConversation({ accountId: ctx.account.id, id: conversationId });
  if (!found || found.inbox.channelType !== 'web') throw new Response('Not Found', { status: 404 });
  await publishAgentTyping({
    accountId: ctx.account.id,
    conversationId,
    name: `${ctx.user.firstName} ${ctx.user.lastName}`.trim(),
    typing: formData.get('typing') === 'true',
  });
  return new Response(null, { status: 204 });
}
