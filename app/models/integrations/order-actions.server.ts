import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { addMessage } from '../inbox/messages.server';

/**
 * After a store order was cancelled or refunded at Shopify or BigCommerce (ADR 079, 098, 118): the conversation's
 * system line saying who did what and `integration_order_action`, in one transaction.
 */
export async function noteOrderAction(opts: {
  accountId: number;
  userId: number;
  conversationId: number;
  text: string;
  provider: 'shopify' | 'bigcommerce';
  action: 'cancel' | 'refund';
  orderId: number;
  orderName: string;
}) {
  await getDb().transaction(async (tx) => {
    const [conv] = await tx
      .select({ id: schema.conversations.id })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
    if (!conv) return;
    await addMessage(tx, { accountId: opts.accountId, conversationId: conv.id, kind: 'system', text: opts.text, senderUserId: opts.userId });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'integration_order_action',
      subjectType: 'conversation',
      subjectId: conv.id,
      payload: { provider: opts.provider, action: opts.action, orderId: opts.orderId, orderName: opts.orderName },
      actor: { type: 'user', id: opts.userId },
    });
  });
}
