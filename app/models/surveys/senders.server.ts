import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

/**
 * Section 3 "verifiedEmails": the addresses an email survey may be sent from — the account's email inboxes whose
 * forwarding was verified. With none, the placeholder address of the account's own host (section 9).
 */
export async function listEmailSenderOptions(opts: { accountId: number; host: string }) {
  const i = schema.inboxes;
  const rows = await getDb()
    .select({ email: i.email })
    .from(i)
    .where(and(eq(i.accountId, opts.accountId), eq(i.channelType, 'email'), isNotNull(i.email), isNotNull(i.forwardingVerifiedAt)))
    .orderBy(asc(i.id));
  const list = [...new Set(rows.map((r) => r.email!.toLowerCase()))];
  return list.length ? list : [`no-reply@${opts.host.split(':')[0]}`];
}
