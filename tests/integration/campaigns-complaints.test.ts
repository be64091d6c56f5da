import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { getCampaign } from '../../app/models/campaigns/campaigns.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { createTestAccount } from '../factories';

/**
 * Feedback-loop complaints (ARF, RFC 5965) arriving on the inbound email path: the complaining address is suppressed
 * and the campaign counts a complaint once; a report naming another account's campaign email changes nothing there.
 */
async function setUp() {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const inbox = await createEmailInbox({ accountId, actorId: a.owner.id, name: 'News', email: `news@${a.domain}.test`, mode: 'forwarding' });
  const [campaign] = await getDb()
    .insert(schema.campaigns)
    .values({ accountId, kind: 'email', name: 'November news', status: 'sent', inboxId: inbox.id, subject: 'News', recipientCount: 1, sentCount: 1 })
    .returning();
  const [recipient] = await getDb()
    .insert(schema.campaignRecipients)
    .values({ accountId, campaignId: campaign.id, address: `ana-${a.domain}@example.test`, status: 'sent', sentAt: new Date() })
    .returning();
  return { ...a, accountId, inbox, campaign, recipient };
}

/** An ARF report as mailbox providers send it: a human part, the feedback report and the original headers. */
function arf(opts: { to: string; messageId: string; rcpt: string; id: string }) {
  return Buffer.from(
    [
      'From: feedback@fbl.example.net',
      `To: ${opts.to}`,
      'Subject: Complaint about message',
      `Message-ID: <${opts.id}@fbl.example.net>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=feedback-report; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'This is an email abuse report for an email message received from IP 192.0.2.1.',
      '--b1',
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      'User-Agent: ExampleFBL/1.0',
      'Version: 1',
      `Original-Rcpt-To: ${opts.rcpt}`,
      '',
      '--b1',
      'Content-Type: text/rfc822-headers',
      '',
      `From: News <${opts.to}>`,
      `To: ${opts.rcpt}`,
      'Subject: News',
      `Message-ID: ${opts.messageId}`,
      '',
      '--b1--',
      '',
    ].join('\r\n'),
  );
}

const suppressions = (accountId: number) =>
  getDb().select({ address: schema.campaignSuppressions.address, reason: schema.campaignSuppressions.reason }).from(schema.campaignSuppressions).where(eq(schema.campaignSuppressions.accountId, accountId));

describe('complaints', () => {
  it('suppresses the address and counts the complaint once; it opens no conversation', async () => {
    const a = await setUp();
    const messageId = `<campaign.${a.campaign.id}.${a.recipient.id}.a${a.accountId}@${a.domain}.test>`;
    const report = (id: string) => arf({ to: `news@${a.domain}.test`, messageId, rcpt: a.recipient.address, id });
    expect(await ingestEmail({ inbox: a.inbox, raw: report('f1'), via: 'http' })).toEqual({ status: 'complaint', suppressed: 1 });
    await ingestEmail({ inbox: a.inbox, raw: report('f2'), via: 'http' });
    expect((await getCampaign({ accountId: a.accountId, id: a.campaign.id }))?.complainedCount).toBe(1);
    expect(await suppressions(a.accountId)).toEqual([{ address: a.recipient.address, reason: 'complained' }]);
    const conversations = await getDb().select({ id: schema.conversations.id }).from(schema.conversations).where(eq(schema.conversations.accountId, a.accountId));
    expect(conversations).toEqual([]);
    const events = await getDb()
      .select({ kind: schema.campaignEvents.kind })
      .from(schema.campaignEvents)
      .where(and(eq(schema.campaignEvents.accountId, a.accountId), eq(schema.campaignEvents.campaignId, a.campaign.id)));
    expect(events).toEqual([{ kind: 'complaint' }]);
  });

  it("without a campaign Message-ID suppresses the Original-Rcpt-To; another account's campaign is not touched", async () => {
    const one = await setUp();
    const two = await setUp();
    // Account two's inbox receives a report quoting account one's campaign email: one's figures stay as they were.
    const forged = `<campaign.${one.campaign.id}.${one.recipient.id}.a${one.accountId}@${one.domain}.test>`;
    const res = await ingestEmail({ inbox: two.inbox, raw: arf({ to: `news@${two.domain}.test`, messageId: forged, rcpt: 'someone@example.test', id: 'x1' }), via: 'http' });
    expect(res).toEqual({ status: 'complaint', suppressed: 1 });
    expect((await getCampaign({ accountId: one.accountId, id: one.campaign.id }))?.complainedCount).toBe(0);
    expect(await suppressions(one.accountId)).toEqual([]);
    expect(await suppressions(two.accountId)).toEqual([{ address: 'someone@example.test', reason: 'complained' }]);
  });
});
