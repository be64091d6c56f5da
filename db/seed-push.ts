import crypto from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema } from './client';
import { createPushCampaign } from '../app/models/campaigns/campaigns.server';
import { createPushSegment } from '../app/models/campaigns/push-segments.server';

/**
 * The demo's web push (ADR 083): 140 visitors who subscribed through the website chat over the last five weeks, two
 * push segments, a draft and a campaign sent four days ago with the figures a sender and service worker would have
 * written (the demo sends nothing; its endpoints are made up).
 */
export async function seedDemoPush(opts: { accountId: number; actorId: number; now: Date }) {
  const db = getDb();
  const who = { accountId: opts.accountId, actorId: opts.actorId };
  const [web] = await db
    .select({ id: schema.inboxes.id })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.channelType, 'web')))
    .limit(1);
  const pages = [
    'https://parley-demo.example/pricing',
    'https://parley-demo.example/blog/november',
    'https://parley-demo.example/',
    'https://parley-demo.example/features/inbox',
  ];
  const referrers = ['', 'https://www.google.com/', 'https://news.ycombinator.com/', 'https://www.bing.com/', ''];
  const browsers: [string, string, 'desktop' | 'mobile'][] = [
    ['Chrome', 'Windows 10.0', 'desktop'],
    ['Chrome', 'OS X', 'desktop'],
    ['Firefox', 'Linux', 'desktop'],
    ['Edge', 'Windows 10.0', 'desktop'],
    ['Chrome', 'other', 'mobile'],
    ['Safari', 'OS X', 'desktop'],
    ['Opera', 'Windows 8.1', 'desktop'],
  ];
  const zones = ['Europe/Berlin', 'Europe/London', 'America/New_York', 'Europe/Paris', 'Asia/Tokyo'];
  const countries = ['DE', 'GB', 'US', 'FR', 'JP'];
  const rows = Array.from({ length: 140 }, (_, i) => {
    const seed = crypto.createHash('sha256').update(`demo-push-${opts.accountId}-${i}`).digest();
    const [browser, os, platform] = browsers[(i * 5) % browsers.length];
    const referrer = referrers[i % referrers.length];
    return {
      accountId: opts.accountId,
      inboxId: web?.id ?? null,
      endpoint: `https://fcm.googleapis.com/fcm/send/demo-${seed.subarray(0, 12).toString('base64url')}`,
      p256dh: Buffer.concat([Buffer.from([4]), seed, crypto.createHash('sha256').update(seed).digest()]).toString('base64url'),
      auth: seed.subarray(16, 32).toString('base64url'),
      pageUrl: pages[(i * 3) % pages.length],
      referrer: referrer || null,
      referrerType: (!referrer ? 'direct' : /google|bing/.test(referrer) ? 'searchEngine' : 'refferal') as 'direct' | 'searchEngine' | 'refferal',
      browser,
      os,
      platform,
      location: countries[i % countries.length],
      timezone: zones[i % zones.length],
      createdAt: new Date(opts.now.getTime() - ((i * 6) % 35) * 86_400_000 - ((i * 7) % 24) * 3_600_000),
    };
  });
  await db.insert(schema.pushSubscriptions).values(rows).onConflictDoNothing();
  const pricing = await createPushSegment({
    ...who,
    name: 'Pricing page visitors',
    actionOperator: 'AND',
    actions: [{ key: 'pageUrl', operator: 'contains', value: '/pricing' }],
    propertyOperator: 'AND',
    properties: [],
  });
  const desktop = await createPushSegment({
    ...who,
    name: 'Desktop Chrome and Edge',
    actionOperator: 'AND',
    actions: [],
    propertyOperator: 'AND',
    properties: [
      { key: 'platform', operator: 'equals', value: 'desktop' },
      { key: 'browser', operator: 'notEquals', value: 'Firefox' },
    ],
  });
  await createPushCampaign({
    ...who,
    name: 'New mobile inbox',
    pushSegmentId: desktop.id,
    title: 'The mobile inbox is here',
    body: 'Answer customers from your phone. See what is new.',
    url: 'https://parley-demo.example/blog/november',
  });
  const sent = await createPushCampaign({
    ...who,
    name: 'Black Friday: 30% off',
    pushSegmentId: pricing.id,
    title: 'Black Friday: 30% off',
    body: 'Every plan is 30% off until Monday.',
    url: 'https://parley-demo.example/pricing',
    icon: 'https://parley-demo.example/icon-192.png',
  });
  const startedAt = new Date(opts.now.getTime() - 4 * 86_400_000);
  const inserted = await db.execute(sql`
    insert into campaign_recipients (account_id, campaign_id, contact_id, address, status, claimed_at, sent_at)
    select ${opts.accountId}, ${
    sent.id
  }, s.contact_id, 'push:' || s.id, 'sent', ${startedAt.toISOString()}::timestamptz, ${startedAt.toISOString()}::timestamptz
    from push_subscriptions s
    where s.account_id = ${opts.accountId} and s.page_url like '%/pricing%' and s.created_at < ${startedAt.toISOString()}::timestamptz
    order by s.id
    on conflict do nothing
    returning id`);
  const ids = (inserted as unknown as { id: number }[]).map((r) => Number(r.id));
  // Two subscriptions had expired (the push service answered 410), most notifications were shown, some clicked.
  const expired = ids.slice(0, 2);
  const reached = ids.slice(2);
  const delivered = reached.filter((_, i) => i % 11 !== 5);
  const clicked = delivered.filter((_, i) => i % 6 === 1);
  const at = (i: number) => new Date(startedAt.getTime() + (i + 1) * 4 * 60_000);
  const r = schema.campaignRecipients;
  // A few statements, not one per recipient: the seed runs on every fresh start.
  if (expired.length)
    await db
      .update(r)
      .set({ status: 'failed', sentAt: null, bouncedAt: startedAt, error: 'The push service answered 410: the subscription is gone' })
      .where(inArray(r.id, expired));
  if (delivered.length) {
    await db.execute(
      sql`update campaign_recipients set delivered_at = ${startedAt.toISOString()}::timestamptz + (array_position(${sql.raw(
        `array[${delivered.join(',')}]::bigint[]`,
      )}, id) * interval '4 minutes') where id in ${sql.raw(`(${delivered.join(',')})`)}`,
    );
    await db
      .insert(schema.campaignEvents)
      .values(delivered.map((id, i) => ({ accountId: opts.accountId, campaignId: sent.id, recipientId: id, kind: 'delivered' as const, createdAt: at(i) })));
  }
  if (clicked.length) {
    await db.execute(
      sql`update campaign_recipients set clicked_at = ${startedAt.toISOString()}::timestamptz + (array_position(${sql.raw(
        `array[${clicked.join(',')}]::bigint[]`,
      )}, id) * interval '9 minutes') where id in ${sql.raw(`(${clicked.join(',')})`)}`,
    );
    await db
      .insert(schema.campaignEvents)
      .values(
        clicked.map((id, i) => ({
          accountId: opts.accountId,
          campaignId: sent.id,
          recipientId: id,
          kind: 'click' as const,
          url: 'https://parley-demo.example/pricing',
          createdAt: at(i + 3),
        })),
      );
  }
  await db
    .update(schema.campaigns)
    .set({
      status: 'sent',
      scheduledAt: startedAt,
      timeZone: 'Europe/Berlin',
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 20_000),
      recipientCount: ids.length,
      sentCount: reached.length,
      failedCount: expired.length,
      deliveredCount: delivered.length,
      clickedCount: clicked.length,
    })
    .where(and(eq(schema.campaigns.accountId, opts.accountId), eq(schema.campaigns.id, sent.id)));
}
