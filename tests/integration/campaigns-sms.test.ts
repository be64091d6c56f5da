import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createSmsCampaign, getCampaign, scheduleCampaign } from '../../app/models/campaigns/campaigns.server';
import { runCampaignSend } from '../../app/models/campaigns/sending.server';
import { smsKeyword, smsLength } from '../../app/models/campaigns/sms';
import { ingestChannelMessage } from '../../app/models/channels/inbound.server';
import { createSmsInbox } from '../../app/models/channels/sms.server';
import { createSegment } from '../../app/models/crm/segments.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { startTwilioStandIn, type TwilioAccount } from '../helpers/stand-ins/twilio';

let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
beforeAll(async () => {
  twilio = await startTwilioStandIn();
  process.env.TWILIO_API_BASE = twilio.baseUrl;
  resetSingleton('config');
});
afterAll(async () => {
  await twilio.close();
});

describe('SMS campaigns', () => {
  it('counts characters and parts as carriers do, and knows the opt-out keywords', () => {
    expect(smsLength('a'.repeat(160))).toEqual({ encoding: 'GSM-7', characters: 160, segments: 1 });
    expect(smsLength('a'.repeat(161)).segments).toBe(2);
    expect(smsLength('€'.repeat(80))).toMatchObject({ encoding: 'GSM-7', characters: 160, segments: 1 });
    expect(smsLength('Grüße 😀')).toMatchObject({ encoding: 'UCS-2', segments: 1 });
    expect(smsLength('ü'.repeat(10) + 'ł'.repeat(61)).segments).toBe(2);
    expect(smsKeyword(' stop ')).toBe('stop');
    expect(smsKeyword('Unsubscribe!')).toBe('stop');
    expect(smsKeyword('START')).toBe('start');
    expect(smsKeyword('stop sending me the invoice twice')).toBeNull();
  });

  it('texts each contact of the segment with a phone once through Twilio; STOP keeps the number out of the next campaign', async () => {
    const a = await createTestAccount();
    const accountId = a.account.id;
    const account: TwilioAccount = { accountSid: `AC${accountId}${'1'.repeat(32)}`.slice(0, 34), authToken: `token-${a.domain}`, numbers: [{ phone_number: '+15005550006', friendly_name: 'Main' }] };
    twilio.addAccount(account);
    const inbox = await createSmsInbox({
      accountId,
      actorId: a.owner.id,
      publicBase: 'http://localhost:3000',
      input: { provider: 'twilio', name: 'Texts', phoneNumber: '+15005550006', accountSID: account.accountSid, sid: account.accountSid, authToken: account.authToken, threadingInterval: 1, autoResolvedDays: 0, assigneeIds: [a.owner.id] },
    });
    await getDb()
      .insert(schema.contacts)
      .values([
        { accountId, firstName: 'Ana', phone: '+14155550101', country: 'US' },
        { accountId, firstName: 'Ben', phone: '+14155550102', country: 'US' },
        { accountId, firstName: 'Cy', email: 'cy@example.test', country: 'US' },
      ]);
    const segment = await createSegment({ accountId, actorId: a.owner.id, kind: 'contact', name: 'US', isStatic: false, conditions: { country: 'US' }, memberIds: [] });
    const before = twilio.sent.length;
    const first = await createSmsCampaign({ accountId, actorId: a.owner.id, name: 'Sale', segmentId: segment.id, inboxId: inbox.id, body: 'Hi {{firstName}}, 20% off today.' });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: first.id });
    await runCampaignSend({ accountId, campaignId: first.id });
    await runCampaignSend({ accountId, campaignId: first.id });
    const texts = twilio.sent.slice(before);
    expect(texts.map((t) => t.params.To).sort()).toEqual(['+14155550101', '+14155550102']);
    expect(texts.find((t) => t.params.To === '+14155550101')!.params.Body).toBe('Hi Ana, 20% off today.\nReply STOP to opt out.');
    expect((await getCampaign({ accountId, id: first.id }))).toMatchObject({ status: 'sent', recipientCount: 2, sentCount: 2 });

    // Ana answers STOP: the message reaches the inbox, and her number is suppressed.
    const reply = await ingestChannelMessage({ inbox, sourceType: 'twilio', sender: { phone: '+14155550101' }, text: 'STOP', externalId: `SM-stop-${accountId}` });
    expect(reply.status).toBe('created');
    const second = await createSmsCampaign({ accountId, actorId: a.owner.id, name: 'Sale 2', segmentId: segment.id, inboxId: inbox.id, body: 'Last day!' });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: second.id });
    await runCampaignSend({ accountId, campaignId: second.id });
    expect(twilio.sent.slice(before + 2).map((t) => t.params.To)).toEqual(['+14155550102']);

    // START opts back in.
    await ingestChannelMessage({ inbox, sourceType: 'twilio', sender: { phone: '+14155550101' }, text: 'start', externalId: `SM-start-${accountId}` });
    const third = await createSmsCampaign({ accountId, actorId: a.owner.id, name: 'Sale 3', segmentId: segment.id, inboxId: inbox.id, body: 'Back again' });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: third.id });
    await runCampaignSend({ accountId, campaignId: third.id });
    expect(twilio.sent.slice(before + 3).map((t) => t.params.To).sort()).toEqual(['+14155550101', '+14155550102']);
  });

  it("refuses another account's SMS inbox or segment", async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const segment = await createSegment({ accountId: b.account.id, actorId: b.owner.id, kind: 'contact', name: 'All', isStatic: false, conditions: {}, memberIds: [] });
    await expect(createSmsCampaign({ accountId: a.account.id, actorId: a.owner.id, name: 'x', segmentId: segment.id, inboxId: 1, body: 'x' })).rejects.toThrow(/Segment/);
  });
});
