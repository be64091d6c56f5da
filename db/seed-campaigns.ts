import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from './client';
import { createEmailCampaign, createMessageCampaign, scheduleCampaign } from '../app/models/campaigns/campaigns.server';
import { createCampaignTemplate } from '../app/models/campaigns/templates.server';

/**
 * The demo's campaigns: two templates, a draft, and a campaign sent three days ago to the VIP segment with its
 * figures (written as the sender and the tracking links would have; the demo sends no mail).
 */
export async function seedDemoCampaigns(opts: { accountId: number; actorId: number; now: Date }) {
  const db = getDb();
  const who = { accountId: opts.accountId, actorId: opts.actorId };
  const news = await createCampaignTemplate({
    ...who,
    name: 'Monthly newsletter',
    subject: 'What is new this month',
    bodyHtml:
      '<h2>Hello {{firstName}},</h2><p>This month we shipped faster exports and a new mobile inbox.</p><p><a href="https://parley-demo.example/blog/november">Read the full story</a></p><p>Thanks for being with us!</p>',
  });
  await createCampaignTemplate({
    ...who,
    name: 'Renewal reminder',
    subject: 'Your plan renews soon',
    bodyHtml: '<p>Hi {{firstName}},</p><p>Your plan renews next week. <a href="https://parley-demo.example/billing">Review your plan</a>.</p>',
  });
  const [sender] = await db
    .select({ id: schema.inboxes.id })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.channelType, 'email')))
    .limit(1);
  const segments = await db
    .select({ id: schema.segments.id, name: schema.segments.name })
    .from(schema.segments)
    .where(and(eq(schema.segments.accountId, opts.accountId), eq(schema.segments.kind, 'contact')));
  const vip = segments.find((s) => s.name === 'VIP customers') ?? segments[0];
  const germany = segments.find((s) => s.name === 'Germany') ?? segments[0];
  if (!sender || !vip) return;
  await createEmailCampaign({ ...who, name: 'December newsletter', segmentId: germany.id, inboxId: sender.id, templateId: news.id, subject: 'Our December news', trackOpens: true, trackClicks: true });
  const sent = await createEmailCampaign({ ...who, name: 'November newsletter', segmentId: vip.id, inboxId: sender.id, templateId: news.id, subject: 'What is new in November', trackOpens: true, trackClicks: true });
  const startedAt = new Date(opts.now.getTime() - 3 * 86_400_000);
  // The VIP contacts with an address, as the audience freeze takes them.
  const recipients = await db.execute(sql`
    insert into campaign_recipients (account_id, campaign_id, contact_id, address, status, claimed_at, sent_at)
    select ${opts.accountId}, ${sent.id}, c.id, lower(c.email), 'sent', ${startedAt.toISOString()}::timestamptz, ${startedAt.toISOString()}::timestamptz
    from contacts c
    where c.account_id = ${opts.accountId} and c.email is not null
      and exists (select 1 from contact_tags ct join segments s on s.id = ${vip.id} where ct.contact_id = c.id and ct.account_id = ${opts.accountId} and ct.tag_id = (s.conditions->>'tag')::int)
    on conflict do nothing
    returning id`);
  const ids = (recipients as unknown as { id: number }[]).map((r) => Number(r.id));
  const opened = ids.filter((_, i) => i % 3 !== 2);
  const clicked = ids.filter((_, i) => i % 3 === 0);
  const at = (i: number) => new Date(startedAt.getTime() + (i + 1) * 37 * 60_000);
  for (const [i, id] of opened.entries()) {
    await db.update(schema.campaignRecipients).set({ openedAt: at(i) }).where(eq(schema.campaignRecipients.id, id));
    await db.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId: sent.id, recipientId: id, kind: 'open', createdAt: at(i) });
  }
  for (const [i, id] of clicked.entries()) {
    await db.update(schema.campaignRecipients).set({ clickedAt: at(i) }).where(eq(schema.campaignRecipients.id, id));
    await db.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId: sent.id, recipientId: id, kind: 'click', url: 'https://parley-demo.example/blog/november', createdAt: at(i) });
  }
  await db
    .update(schema.campaigns)
    .set({
      status: 'sent',
      scheduledAt: startedAt,
      timeZone: 'Europe/Berlin',
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 60_000),
      recipientCount: ids.length,
      sentCount: ids.length,
      openedCount: opened.length,
      clickedCount: clicked.length,
    })
    .where(and(eq(schema.campaigns.accountId, opts.accountId), eq(schema.campaigns.id, sent.id)));
  await seedDemoChatCampaign({ ...who, now: opts.now });
}

/** A message campaign live on the website chat's pricing pages since last week, with what it did (ADR 082). */
async function seedDemoChatCampaign(opts: { accountId: number; actorId: number; now: Date }) {
  const db = getDb();
  const [web] = await db
    .select({ id: schema.inboxes.id })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.channelType, 'web')))
    .limit(1);
  if (!web) return;
  const row = await createMessageCampaign({
    accountId: opts.accountId,
    actorId: opts.actorId,
    name: 'Pricing page: need a hand?',
    inboxId: web.id,
    senderUserId: opts.actorId,
    body: 'Hi! Comparing plans? Ask me anything — I can tell you which one fits your team.',
    pages: ['/pricing'],
    pageMatch: 'start',
    delaySeconds: 20,
    visitor: 'any',
    businessHoursOnly: true,
  });
  await scheduleCampaign({ accountId: opts.accountId, actorId: opts.actorId, id: row.id, timeZone: 'Europe/Berlin' });
  const startedAt = new Date(opts.now.getTime() - 7 * 86_400_000);
  // The figures of a week: shown to 184 visitors, 23 of them replied (the demo's visitors are not real browsers).
  await db
    .update(schema.campaigns)
    .set({ startedAt, scheduledAt: startedAt, recipientCount: 184, sentCount: 184, repliedCount: 23 })
    .where(and(eq(schema.campaigns.accountId, opts.accountId), eq(schema.campaigns.id, row.id)));
}
