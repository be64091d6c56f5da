import { and, eq } from 'drizzle-orm';
import { schema, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { smsKeyword } from './sms';

/**
 * An inbound SMS that is an opt-out keyword (STOP...) puts the number on the account's SMS suppression list, in the
 * transaction that records the message; START takes it off. The message itself still reaches the inbox.
 */
export async function applySmsKeyword(tx: Tx, opts: { accountId: number; phone: string; text: string }) {
  const keyword = smsKeyword(opts.text);
  if (!keyword) return null;
  const s = schema.campaignSuppressions;
  if (keyword === 'stop') {
    const [row] = await tx
      .insert(s)
      .values({ accountId: opts.accountId, channel: 'sms', address: opts.phone, reason: 'stop' })
      .onConflictDoNothing()
      .returning();
    if (row) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'campaign_recipient_suppressed',
        subjectType: 'campaign',
        subjectId: 0,
        payload: { reason: 'stop', channel: 'sms' },
        actor: { type: 'system' },
      });
    }
    return 'stop' as const;
  }
  await tx.delete(s).where(and(eq(s.accountId, opts.accountId), eq(s.channel, 'sms'), eq(s.address, opts.phone), eq(s.reason, 'stop')));
  return 'start' as const;
}
