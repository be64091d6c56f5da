import { and, eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { changeCampaignStatus, createEmailCampaign, deleteCampaign, getCampaign, listCampaigns, scheduleCampaign, updateEmailCampaign, zonedInstant } from '../../app/models/campaigns/campaigns.server';
import { recordClick, recordOpen, unsubscribe } from '../../app/models/campaigns/recipients.server';
import { runCampaignSend } from '../../app/models/campaigns/sending.server';
import { createCampaignTemplate, getCampaignTemplate, keptDesign, pageCampaignTemplates } from '../../app/models/campaigns/templates.server';
import { renderDesign, type TextDesign } from '../../app/models/campaigns/design';
import { campaignLayout } from '../../app/models/campaigns/email-layout.server';
import { signTracking, verifyTracking } from '../../app/models/campaigns/tracking.server';
import { createSegment } from '../../app/models/crm/segments.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { globalSearch } from '../../app/models/search/registry.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';

type Captured = { raw: Buffer; to: string[] };

async function startSink(opts: { refuse?: string } = {}) {
  const received: Captured[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _s, cb) {
      if (opts.refuse && address.address === opts.refuse) return cb(Object.assign(new Error('550 5.1.1 No such user'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ raw: Buffer.concat(chunks), to: session.envelope.rcptTo.map((r) => r.address) });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let sink: Awaited<ReturnType<typeof startSink>>;
beforeAll(async () => {
  sink = await startSink({ refuse: 'gone@example.test' });
  process.env.SMTP_URL = `smtp://127.0.0.1:${sink.port}`;
  resetSingleton('config');
  resetSingleton('smtp-transport');
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  resetSingleton('config');
  await sink.close();
});

/** An account with an email inbox, contacts in two countries and a dynamic segment of one of them. */
async function setUp(prefix: string) {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const inbox = await createEmailInbox({ accountId, actorId: a.owner.id, name: 'Acme News', email: `news@${a.domain}.test`, mode: 'forwarding' });
  const people = [
    { firstName: 'Ana', email: `ana-${prefix}@example.test`, country: 'FR' },
    { firstName: 'Ben', email: `ben-${prefix}@example.test`, country: 'FR' },
    { firstName: 'Cy', email: 'gone@example.test', country: 'FR' },
    { firstName: 'Dee', email: `dee-${prefix}@example.test`, country: 'DE' },
    { firstName: 'Eve', email: null, country: 'FR' },
  ];
  await getDb()
    .insert(schema.contacts)
    .values(people.map((p) => ({ accountId, firstName: p.firstName, lastName: 'Test', email: p.email, country: p.country })));
  const segment = await createSegment({ accountId, actorId: a.owner.id, kind: 'contact', name: 'France', isStatic: false, conditions: { country: 'FR' }, memberIds: [] });
  return { ...a, accountId, inbox, segment };
}

const mailsTo = (address: string) => sink.received.filter((m) => m.to.includes(address));

describe('email campaigns', () => {
  it('keeps a template\'s block design only while the html is its rendering (ADR 095); a bad or altered design is dropped', async () => {
    const a = await setUp('design');
    const design: TextDesign = {
      version: 1,
      blocks: [
        { type: 'heading', text: 'Hello {{firstName}}' },
        { type: 'text', text: 'Line one\n\nLine <two>' },
        { type: 'image', src: 'https://cdn.example.test/a.png', alt: 'A', href: '' },
        { type: 'button', label: 'Shop', href: 'https://shop.example.test', color: '#112233' },
        { type: 'divider' },
        { type: 'columns', left: 'Left', right: 'Right' },
      ],
    };
    const html = renderDesign(design);
    expect(html).toContain('&lt;two&gt;');
    expect(html).toContain('{{firstName}}');
    const kept = await createCampaignTemplate({ accountId: a.accountId, actorId: a.owner.id, name: 'Designed', subject: 'Hi', bodyHtml: html, textDesign: JSON.stringify(design) });
    expect(JSON.parse(kept.textDesign!)).toEqual(design);
    expect(kept.bodyText).toContain('Hello {{firstName}}');
    // Through mjml's layout: responsive output with the blocks inside.
    const layout = await campaignLayout(kept.bodyHtml, { senderName: 'Acme' });
    expect(layout).toContain('Shop');
    expect(layout).toMatch(/@media only screen/);
    const edited = await createCampaignTemplate({ accountId: a.accountId, actorId: a.owner.id, name: 'Edited', subject: 'Hi', bodyHtml: `${html}<p>by hand</p>`, textDesign: JSON.stringify(design) });
    expect(edited.textDesign).toBeNull();
    const script = { version: 1, blocks: [{ type: 'button', label: 'x', href: 'javascript:alert(1)', color: '#112233' }] };
    const refused = await createCampaignTemplate({ accountId: a.accountId, actorId: a.owner.id, name: 'Bad', subject: 'Hi', bodyHtml: '<p>x</p>', textDesign: JSON.stringify(script) });
    expect(refused.textDesign).toBeNull();
    expect(keptDesign('not json', '')).toBeNull();
  });

  it('keeps an email campaign\'s block design as templates keep theirs; hand-edited html drops it; an empty body takes the template\'s', async () => {
    const a = await setUp('cdesign');
    const design: TextDesign = { version: 1, blocks: [{ type: 'heading', text: 'Autumn sale' }, { type: 'button', label: 'Shop', href: 'https://shop.example.test', color: '#112233' }] };
    const html = renderDesign(design);
    const base = { accountId: a.accountId, actorId: a.owner.id, segmentId: a.segment.id, inboxId: a.inbox.id, subject: 'Sale', trackOpens: true, trackClicks: true };
    const kept = await createEmailCampaign({ ...base, name: 'Designed', bodyHtml: html, textDesign: JSON.stringify(design) });
    expect(JSON.parse(kept.textDesign!)).toEqual(design);
    const reloaded = await getCampaign({ accountId: a.accountId, id: kept.id, kind: 'email' });
    expect(JSON.parse(reloaded!.textDesign!)).toEqual(design);
    const edited = await updateEmailCampaign({ ...base, id: kept.id, name: 'Designed', bodyHtml: `${html}<p>by hand</p>`, textDesign: JSON.stringify(design) });
    expect(edited!.textDesign).toBeNull();
    expect(edited!.bodyHtml).toContain('by hand');
    const template = await createCampaignTemplate({ accountId: a.accountId, actorId: a.owner.id, name: 'Blocks', subject: 'Hi', bodyHtml: html, textDesign: JSON.stringify(design) });
    const fromTemplate = await createEmailCampaign({ ...base, name: 'From template', templateId: template.id, bodyHtml: '' });
    expect(fromTemplate.bodyHtml).toBe(template.bodyHtml);
    expect(JSON.parse(fromTemplate.textDesign!)).toEqual(design);
  });

  it('keeps templates per account, derives the text and refuses a second template of the same name', async () => {
    const a = await setUp('tpl');
    const b = await createTestAccount();
    const t = await createCampaignTemplate({ accountId: a.accountId, actorId: a.owner.id, name: 'Welcome', subject: 'Hello', bodyHtml: '<p>Hi <b>{{firstName}}</b></p><script>x()</script>' });
    expect(t.bodyHtml).not.toContain('script');
    expect(t.bodyText).toBe('Hi {{firstName}}');
    await expect(createCampaignTemplate({ accountId: a.accountId, actorId: a.owner.id, name: 'welcome', subject: 'x' })).rejects.toThrow(/already exists/);
    expect(await getCampaignTemplate({ accountId: b.account.id, id: t.id })).toBeUndefined();
    expect((await pageCampaignTemplates({ accountId: b.account.id })).total).toBe(0);
  });

  it('sends once to each contact of the segment, tracks opens and clicks, and the next campaign skips who unsubscribed or bounced', async () => {
    const a = await setUp('send');
    const campaign = await createEmailCampaign({
      accountId: a.accountId,
      actorId: a.owner.id,
      name: 'November news',
      segmentId: a.segment.id,
      inboxId: a.inbox.id,
      subject: 'News for {{firstName}}',
      bodyHtml: '<p>Hello {{firstName}}, read <a href="https://example.com/post?a=1&amp;b=2">the post</a>.</p>',
      trackOpens: true,
      trackClicks: true,
    });
    await scheduleCampaign({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id });
    // Twice, as a redelivered job would: nobody gets the campaign twice.
    await runCampaignSend({ accountId: a.accountId, campaignId: campaign.id });
    await runCampaignSend({ accountId: a.accountId, campaignId: campaign.id });
    const done = (await getCampaign({ accountId: a.accountId, id: campaign.id }))!;
    expect(done.status).toBe('sent');
    expect(done.recipientCount).toBe(3);
    expect(done.sentCount).toBe(2);
    expect(done.bouncedCount).toBe(1);
    expect(mailsTo('ana-send@example.test')).toHaveLength(1);
    expect(mailsTo('ben-send@example.test')).toHaveLength(1);
    expect(mailsTo('dee-send@example.test')).toHaveLength(0);

    const raw = mailsTo('ana-send@example.test')[0].raw.toString('utf8');
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const mail = await simpleParser(raw);
    const html = String(mail.html);
    expect(html).toContain('Hello Ana');
    expect(html).not.toContain('https://example.com/post');
    const click = /href="(http:\/\/[^"]+\/c\/c\/[^"]+)"/.exec(html)![1];
    const pixel = /src="(http:\/\/[^"]+\/c\/o\/[^"]+)"/.exec(html)![1];
    const unsub = /^List-Unsubscribe:\s*<([^>]+\/c\/u\/[^>]+)>/m.exec(raw.replace(/\r?\n[ \t]+/g, ''))![1];
    expect(await recordOpen(pixel.split('/c/o/')[1])).toBe(true);
    expect(await recordClick(click.split('/c/c/')[1])).toBe('https://example.com/post?a=1&b=2');
    expect(await unsubscribe(unsub.split('/c/u/')[1])).toBe(true);
    // Ana answers the email: a conversation in the inbox, counted as the campaign's reply once.
    const reply = (id: string) =>
      Buffer.from(`From: Ana <ana-send@example.test>\r\nTo: news@${a.domain}.test\r\nSubject: Re: News\r\nMessage-ID: <${id}@example.test>\r\nIn-Reply-To: ${mail.messageId}\r\n\r\nThanks!\r\n`);
    expect((await ingestEmail({ inbox: a.inbox, raw: reply('r1'), via: 'http' })).status).toBe('created');
    await ingestEmail({ inbox: a.inbox, raw: reply('r2'), via: 'http' });
    const after = (await getCampaign({ accountId: a.accountId, id: campaign.id }))!;
    expect([after.openedCount, after.clickedCount, after.unsubscribedCount, after.repliedCount]).toEqual([1, 1, 1, 1]);

    const next = await createEmailCampaign({ ...campaignFields(a), name: 'December news' });
    await scheduleCampaign({ accountId: a.accountId, actorId: a.owner.id, id: next.id });
    await runCampaignSend({ accountId: a.accountId, campaignId: next.id });
    const second = (await getCampaign({ accountId: a.accountId, id: next.id }))!;
    expect(second.recipientCount).toBe(1);
    expect(mailsTo('ana-send@example.test')).toHaveLength(1);
    expect(mailsTo('ben-send@example.test')).toHaveLength(2);
  });

  it('refuses forged and altered links, and a link never reaches another account', async () => {
    const token = signTracking({ k: 'c', a: 1, r: 1, u: 'https://example.com/' });
    expect(verifyTracking(token, 'c')).not.toBeNull();
    expect(verifyTracking(token, 'u')).toBeNull();
    const [body, sig] = token.split('.');
    const altered = Buffer.from(JSON.stringify({ k: 'c', a: 2, r: 1, u: 'https://evil.example/' })).toString('base64url');
    expect(verifyTracking(`${altered}.${sig}`, 'c')).toBeNull();
    expect(verifyTracking(`${body}.${sig.slice(0, -1)}A`, 'c')).toBeNull();
    expect(await recordClick(`${altered}.${sig}`)).toBeNull();
    expect(await unsubscribe(`${body}x.${sig}`)).toBe(false);
    // A genuine link of account A naming a recipient id of account B records nothing for B.
    const a = await setUp('xa');
    const b = await setUp('xb');
    const cb = await createEmailCampaign({ ...campaignFields(b), name: 'B news' });
    await scheduleCampaign({ accountId: b.accountId, actorId: b.owner.id, id: cb.id });
    await runCampaignSend({ accountId: b.accountId, campaignId: cb.id });
    const [bRecipient] = await getDb().select().from(schema.campaignRecipients).where(eq(schema.campaignRecipients.campaignId, cb.id));
    expect(await unsubscribe(signTracking({ k: 'u', a: a.accountId, r: bRecipient.id }))).toBe(false);
    const suppressed = await getDb()
      .select()
      .from(schema.campaignSuppressions)
      .where(and(eq(schema.campaignSuppressions.accountId, b.accountId), eq(schema.campaignSuppressions.reason, 'unsubscribed')));
    expect(suppressed).toHaveLength(0);
    // Another account's segment or sender is refused; lists never show another account's campaigns.
    await expect(createEmailCampaign({ ...campaignFields(a), segmentId: b.segment.id })).rejects.toThrow(/Segment/);
    await expect(createEmailCampaign({ ...campaignFields(a), inboxId: b.inbox.id })).rejects.toThrow(/Sender/);
    expect((await listCampaigns({ accountId: a.accountId })).rows.map((r) => r.id)).not.toContain(cb.id);
  });

  it('pauses mid-send without losing anyone, and resumes where it stopped', async () => {
    const a = await setUp('pause');
    const campaign = await createEmailCampaign(campaignFields(a));
    await scheduleCampaign({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id });
    // Paused once the audience is frozen, before the first claim.
    const { freezeForTest } = await import('../../app/models/campaigns/sending.server');
    await freezeForTest({ accountId: a.accountId, campaignId: campaign.id });
    await changeCampaignStatus({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id, transition: 'pause' });
    await runCampaignSend({ accountId: a.accountId, campaignId: campaign.id });
    expect(mailsTo('ana-pause@example.test')).toHaveLength(0);
    expect((await getCampaign({ accountId: a.accountId, id: campaign.id }))!).toMatchObject({ status: 'paused', recipientCount: 3, sentCount: 0 });
    await changeCampaignStatus({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id, transition: 'resume' });
    await runCampaignSend({ accountId: a.accountId, campaignId: campaign.id });
    expect(mailsTo('ana-pause@example.test')).toHaveLength(1);
    expect(mailsTo('ben-pause@example.test')).toHaveLength(1);
    expect((await getCampaign({ accountId: a.accountId, id: campaign.id }))!).toMatchObject({ status: 'sent', sentCount: 2 });
  });

  it('reads a scheduled time in the time zone it was typed in', () => {
    expect(zonedInstant('2026-07-01T09:30', 'Europe/Paris')!.toISOString()).toBe('2026-07-01T07:30:00.000Z');
    expect(zonedInstant('2026-01-15T09:30', 'America/New_York')!.toISOString()).toBe('2026-01-15T14:30:00.000Z');
    expect(zonedInstant('not a date', 'UTC')).toBeNull();
  });

  it('shows campaigns in the global search of their own account only', async () => {
    const a = await setUp('search');
    const b = await setUp('search-b');
    await createEmailCampaign({ ...campaignFields(a), name: 'Spring launch news' });
    const hits = (await globalSearch({ accountId: a.accountId, q: 'spring launch' })).find((g) => g.group === 'Campaigns');
    expect(hits?.hits.map((h) => h.title)).toEqual(['Spring launch news']);
    expect(hits?.hits[0].to).toMatch(/^\/campaigns\/email\/\d+$/);
    const none = (await globalSearch({ accountId: b.accountId, q: 'spring launch' })).find((g) => g.group === 'Campaigns');
    expect(none?.hits ?? []).toEqual([]);
  });

  it('moves through the documented statuses only, pauses without losing recipients, and waits for its schedule', async () => {
    const a = await setUp('state');
    const campaign = await createEmailCampaign(campaignFields(a));
    await expect(changeCampaignStatus({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id, transition: 'pause' })).rejects.toThrow(/cannot/);
    const later = new Date(Date.now() + 3600_000);
    await scheduleCampaign({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id, at: later });
    await runCampaignSend({ accountId: a.accountId, campaignId: campaign.id });
    expect((await getCampaign({ accountId: a.accountId, id: campaign.id }))!.status).toBe('scheduled');
    expect(mailsTo('ana-state@example.test')).toHaveLength(0);
    await changeCampaignStatus({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id, transition: 'unschedule' });
    await scheduleCampaign({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id });
    // Paused right after the audience is frozen: nothing more goes until it is resumed.
    await getDb().update(schema.campaigns).set({ status: 'scheduled' }).where(eq(schema.campaigns.id, campaign.id));
    await runCampaignSend({ accountId: a.accountId, campaignId: campaign.id });
    expect((await getCampaign({ accountId: a.accountId, id: campaign.id }))!.status).toBe('sent');
    expect(mailsTo('ana-state@example.test')).toHaveLength(1);
    await expect(deleteCampaign({ accountId: a.accountId, actorId: a.owner.id, id: campaign.id })).resolves.toBe(true);
  });
});

function campaignFields(a: Awaited<ReturnType<typeof setUp>>) {
  return {
    accountId: a.accountId,
    actorId: a.owner.id,
    name: 'News',
    segmentId: a.segment.id,
    inboxId: a.inbox.id,
    subject: 'News',
    bodyHtml: '<p>Hi {{firstName}}</p>',
    trackOpens: true,
    trackClicks: true,
  };
}
