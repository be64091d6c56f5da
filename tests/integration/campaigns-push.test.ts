import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createPushCampaign, getCampaign, scheduleCampaign } from '../../app/models/campaigns/campaigns.server';
import { PushSegmentSchema, conditionValueError } from '../../app/models/campaigns/push-schemas';
import { countPushSegment, createPushSegment } from '../../app/models/campaigns/push-segments.server';
import { describeBrowser, PUSH_NOT_IN_PLAN_MESSAGE, pushAllowed, recordPushDelivered, referrerTypeOf, subscribePush, vapidKeysFor } from '../../app/models/campaigns/push.server';
import { hasFeature, PLAN_CATALOGUE } from '../../app/models/plans/catalogue';
import { recordClick } from '../../app/models/campaigns/recipients.server';
import { runCampaignSend } from '../../app/models/campaigns/sending.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { startVisitor } from '../../app/models/channels/widget.server';
import { countryOfIp, countryOfRequest } from '../../app/utils/geoip.server';
import { createTestAccount, givePlan } from '../factories';
import { startPushService } from '../helpers/stand-ins/push-service';

/** Web push (ADR 083): segments, subscriptions, VAPID, encryption, 410 handling, figures and tenancy. */

const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

let push: Awaited<ReturnType<typeof startPushService>>;
beforeAll(async () => {
  push = await startPushService();
});
afterAll(async () => {
  await push.close();
});

async function setup() {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Site' });
  const subscribe = async (ua: string, facts: { url: string; referrer?: string; timezone?: string }) => {
    const { visitor } = await startVisitor({ inbox });
    const sub = push.subscribe();
    await subscribePush({ visitor, input: { ...sub.json, ...facts }, userAgent: ua });
    return sub;
  };
  return { a, accountId: a.account.id, actorId: a.owner.id, inbox, subscribe };
}

describe('push segments', () => {
  it('gives every message of the specification', () => {
    const errors = (input: Record<string, unknown>) => {
      const r = PushSegmentSchema.safeParse(input);
      return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
    };
    expect(errors({ name: '' })).toMatchObject({ name: 'Name is not allowed to be empty' });
    // A row's messages show together with the name's.
    expect(errors({ name: '', actions: [{ key: 'pageUrl', operator: 'contains' }] })).toMatchObject({ name: 'Name is not allowed to be empty', 'actions.0.value': 'Page URL is required' });
    expect(errors({ name: 'x'.repeat(41) })).toMatchObject({ name: 'Length must be less than or equal to 40 characters' });
    expect(errors({ name: 'x', actions: [{}] })).toMatchObject({ 'actions.0.key': 'This field is required', 'actions.0.operator': 'This field is required' });
    expect(conditionValueError({ key: 'pageUrl', operator: 'contains', value: '' })).toBe('Page URL is required');
    expect(conditionValueError({ key: 'pageUrl', operator: 'equals', value: 'pricing' })).toBe('Enter a valid Page URL');
    expect(conditionValueError({ key: 'pageUrl', operator: 'equals', value: 'https://shop.example/pricing' })).toBeNull();
    expect(conditionValueError({ key: 'dayOfWeek', operator: 'equals', value: '' })).toBe('Day Of Week is not allowed to be empty');
    expect(conditionValueError({ key: 'hourOfDay', operator: 'equals', value: '' })).toBe('Hour Of Day is not allowed to be empty');
    expect(conditionValueError({ key: 'referrer', operator: 'contains', value: '' })).toBe('This field is required');
    expect(conditionValueError({ key: 'referrerType', operator: 'equals', value: '' })).toBe('This field is required');
    expect(conditionValueError({ key: 'browser', operator: 'equals', value: '' })).toBe('This field is required');
    expect(conditionValueError({ key: 'subscribed', operator: 'lessThan', value: '2999-01-01' })).toBe('The subscribed date cannot be in the future');
    // Operators by key.
    expect(errors({ name: 'x', actions: [{ key: 'subscribed', operator: 'equals', value: '2024-01-01' }] })).toMatchObject({ 'actions.0.operator': 'This operator is not allowed for this field' });
    expect(errors({ name: 'x', actions: [{ key: 'hourOfDay', operator: 'contains', value: '3' }] })).toMatchObject({ 'actions.0.operator': 'This operator is not allowed for this field' });
    expect(errors({ name: 'x', properties: [{ key: 'os', operator: 'contains', value: 'Linux' }] })).toMatchObject({ 'properties.0.operator': 'This operator is not allowed for this field' });
    expect(errors({ name: 'x', actionOperator: 'XOR' })).toMatchObject({ actionOperator: 'This field is required' });
  });

  it('reads browser facts and referrer types', () => {
    expect(describeBrowser(CHROME_WIN)).toEqual({ browser: 'Chrome', os: 'Windows 10.0', platform: 'desktop' });
    expect(describeBrowser(FIREFOX_LINUX)).toEqual({ browser: 'Firefox', os: 'Linux', platform: 'desktop' });
    expect(referrerTypeOf('')).toBe('direct');
    expect(referrerTypeOf('https://www.google.com/search?q=x')).toBe('searchEngine');
    expect(referrerTypeOf('https://blog.example/post')).toBe('refferal');
  });

  it('matches subscriptions by actions and properties with AND and OR, within the account only', async () => {
    const { accountId, actorId, subscribe } = await setup();
    const other = await setup();
    await subscribe(CHROME_WIN, { url: 'https://shop.example/pricing', referrer: 'https://www.google.com/', timezone: 'Europe/Paris' });
    await subscribe(FIREFOX_LINUX, { url: 'https://shop.example/blog', referrer: 'https://news.example/' });
    await other.subscribe(CHROME_WIN, { url: 'https://shop.example/pricing' });
    const seg = (input: Partial<Parameters<typeof createPushSegment>[0]>) =>
      createPushSegment({ accountId, actorId, name: 'S', actionOperator: 'AND', actions: [], propertyOperator: 'AND', properties: [], ...input });
    const count = async (input: Partial<Parameters<typeof createPushSegment>[0]>) => countPushSegment({ accountId, segment: await seg(input) });
    expect(await count({})).toBe(2);
    expect(await count({ actions: [{ key: 'pageUrl', operator: 'contains', value: '/pricing' }] })).toBe(1);
    expect(await count({ actions: [{ key: 'referrerType', operator: 'equals', value: 'searchEngine' }] })).toBe(1);
    expect(await count({ properties: [{ key: 'browser', operator: 'notEquals', value: 'Chrome' }] })).toBe(1);
    expect(await count({ properties: [{ key: 'os', operator: 'equals', value: 'Windows 10.0' }, { key: 'os', operator: 'equals', value: 'Linux' }], propertyOperator: 'OR' })).toBe(2);
    expect(await count({ properties: [{ key: 'os', operator: 'equals', value: 'Windows 10.0' }, { key: 'os', operator: 'equals', value: 'Linux' }], propertyOperator: 'AND' })).toBe(0);
    expect(await count({ actions: [{ key: 'subscribed', operator: 'lessThan', value: '2000-01-01' }] })).toBe(0);
    expect(await count({ actions: [{ key: 'hourOfDay', operator: 'greaterThan', value: '-1' }] })).toBe(2);
  });
});

describe('push segment facts after subscribing (ADR 115)', () => {
  const GEO_DB = path.resolve('node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');

  it('reads the country from a real offline GeoIP database by path, with the proxy header as fallback', async () => {
    expect(await countryOfIp('8.8.8.8', GEO_DB)).toBe('US');
    expect(await countryOfIp('193.51.224.1', GEO_DB)).toBe('FR');
    expect(await countryOfIp('2a00:1450:4001::1', GEO_DB)).toBe('IE');
    expect(await countryOfIp('10.0.0.1', GEO_DB)).toBeNull();
    expect(await countryOfIp('8.8.8.8', undefined)).toBeNull();
    const req = (ip: string, header?: string) => new Request('http://x.test/', { headers: { 'x-parley-client-ip': ip, ...(header ? { 'cf-ipcountry': header } : {}) } });
    process.env.PARLEY_GEOIP_DB = GEO_DB;
    try {
      expect(await countryOfRequest(req('::ffff:193.51.224.1', 'DE'))).toBe('FR');
      expect(await countryOfRequest(req('10.0.0.1', 'de'))).toBe('DE');
      expect(await countryOfRequest(req('10.0.0.1'))).toBeNull();
    } finally {
      delete process.env.PARLEY_GEOIP_DB;
    }
    expect(await countryOfRequest(req('193.51.224.1', 'DE'))).toBe('DE');
    // A path that cannot be read is logged once and falls back to the header.
    expect(await countryOfIp('8.8.8.8', '/nonexistent/GeoLite2-Country.mmdb')).toBeNull();
  });

  it("refreshes a subscribed visitor's page, referrer, browser, time zone, location and visit time on a later visit; other visitors' rows untouched", async () => {
    const { accountId, actorId, inbox } = await setup();
    const { visitor, token } = await startVisitor({ inbox });
    const sub = push.subscribe();
    await subscribePush({ visitor, input: { ...sub.json, url: 'https://shop.example/pricing', referrer: 'https://www.google.com/', timezone: 'Europe/Paris' }, userAgent: CHROME_WIN });
    const bystander = await startVisitor({ inbox });
    await subscribePush({ visitor: bystander.visitor, input: { ...push.subscribe().json, url: 'https://shop.example/' }, userAgent: CHROME_WIN });
    const route = await import('../../app/routes/public.widget.$op');
    const visit = (body: object, ip: string, ua: string) =>
      route.action({
        request: new Request('http://app.test/public/widget/session', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': ua, 'x-parley-client-ip': ip },
          body: JSON.stringify({ inboxId: inbox.id, token, ...body }),
        }),
        params: { op: 'session' },
        context: {},
      }) as Promise<Response>;
    const row = async (visitorId: string) =>
      (await getDb().select().from(schema.pushSubscriptions).where(and(eq(schema.pushSubscriptions.accountId, accountId), eq(schema.pushSubscriptions.visitorId, visitorId))))[0];
    process.env.PARLEY_GEOIP_DB = GEO_DB;
    try {
      // An inner page reached from the site itself: the page, browser and zone change; how the visitor came stays.
      expect((await visit({ url: 'https://shop.example/checkout', push: { r: 'https://shop.example/cart', z: 'America/New_York' } }, '8.8.8.8', FIREFOX_LINUX)).status).toBe(200);
      let now = await row(visitor.id);
      expect(now).toMatchObject({ pageUrl: 'https://shop.example/checkout', referrer: 'https://www.google.com/', referrerType: 'searchEngine', browser: 'Firefox', os: 'Linux', timezone: 'America/New_York', location: 'US' });
      expect(now.seenAt).toBeInstanceOf(Date);
      // A new arrival from elsewhere replaces the referrer.
      await visit({ url: 'https://shop.example/blog', push: { r: 'https://news.example/story', z: 'Not/AZone' } }, '193.51.224.1', CHROME_WIN);
      now = await row(visitor.id);
      expect(now).toMatchObject({ pageUrl: 'https://shop.example/blog', referrer: 'https://news.example/story', referrerType: 'refferal', browser: 'Chrome', timezone: 'America/New_York', location: 'FR' });
      // A session without `push` (a browser that never subscribed) changes nothing.
      await visit({ url: 'https://shop.example/other' }, '8.8.8.8', FIREFOX_LINUX);
      expect((await row(visitor.id)).pageUrl).toBe('https://shop.example/blog');
    } finally {
      delete process.env.PARLEY_GEOIP_DB;
    }
    expect(await row(bystander.visitor.id)).toMatchObject({ pageUrl: 'https://shop.example/', location: null, seenAt: null });
    const count = async (conditions: Partial<Parameters<typeof createPushSegment>[0]>) =>
      countPushSegment({ accountId, segment: await createPushSegment({ accountId, actorId, name: 'S', actionOperator: 'AND', actions: [], propertyOperator: 'AND', properties: [], ...conditions }) });
    expect(await count({ properties: [{ key: 'location', operator: 'equals', value: 'FR' }] })).toBe(1);
    expect(await count({ actions: [{ key: 'pageUrl', operator: 'contains', value: '/blog' }] })).toBe(1);
    expect(await count({ properties: [{ key: 'timezone', operator: 'equals', value: 'America/New_York' }] })).toBe(1);
  });
});

describe('push campaigns', () => {
  it('sends each matching subscription one encrypted, VAPID-signed notification; 410 removes the subscription; delivered and clicks count', async () => {
    const { accountId, actorId, subscribe } = await setup();
    const ana = await subscribe(CHROME_WIN, { url: 'https://shop.example/pricing' });
    const ben = await subscribe(FIREFOX_LINUX, { url: 'https://shop.example/pricing' });
    const cy = await subscribe(CHROME_WIN, { url: 'https://shop.example/pricing' });
    await subscribe(CHROME_WIN, { url: 'https://shop.example/careers' });
    push.expire(cy.id);
    const segment = await createPushSegment({ accountId, actorId, name: 'Pricing', actionOperator: 'AND', actions: [{ key: 'pageUrl', operator: 'contains', value: 'pricing' }], propertyOperator: 'AND', properties: [] });
    const campaign = await createPushCampaign({ accountId, actorId, name: 'Winter sale', pushSegmentId: segment.id, title: 'Winter sale', body: '20% off all plans today', url: 'https://shop.example/sale', icon: 'https://shop.example/icon.png' });
    await scheduleCampaign({ accountId, actorId, id: campaign.id });
    const before = push.received.length;
    await runCampaignSend({ accountId, campaignId: campaign.id });
    await runCampaignSend({ accountId, campaignId: campaign.id });
    expect(push.refused).toEqual([]);
    const got = push.received.slice(before);
    expect(got.map((g) => g.subscription).sort()).toEqual([ana.id, ben.id].sort());
    const keys = await vapidKeysFor({ accountId });
    for (const g of got) {
      expect(g.vapidKey).toBe(keys.publicKey);
      expect(g.claims.aud).toBe(push.origin);
      expect(g.payload).toMatchObject({ title: 'Winter sale', body: '20% off all plans today', icon: 'https://shop.example/icon.png' });
    }
    // The expired subscription is gone and counted as failed (expired).
    const left = await getDb().select({ endpoint: schema.pushSubscriptions.endpoint }).from(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.accountId, accountId));
    expect(left.map((l) => l.endpoint)).not.toContain(cy.json.endpoint);
    expect(await getCampaign({ accountId, id: campaign.id })).toMatchObject({ status: 'sent', recipientCount: 3, sentCount: 2, failedCount: 1 });

    // The service worker reports it shown (once per recipient); a click goes through the tracking redirect.
    const payload = got[0].payload as { url: string; delivered: string };
    const deliveredToken = payload.delivered.split('/').pop()!;
    expect(await recordPushDelivered(deliveredToken)).toBe(true);
    expect(await recordPushDelivered(deliveredToken)).toBe(true);
    expect(await recordPushDelivered(`${deliveredToken}x`)).toBe(false);
    expect(await recordClick(payload.url.split('/').pop()!)).toBe('https://shop.example/sale');
    expect(await getCampaign({ accountId, id: campaign.id })).toMatchObject({ deliveredCount: 1, clickedCount: 1 });

    // Sending again never reaches a recipient twice.
    await runCampaignSend({ accountId, campaignId: campaign.id });
    expect(push.received.length).toBe(before + 2);
  });

  it("keeps the VAPID private key sealed and refuses another account's push segment", async () => {
    const { accountId, actorId } = await setup();
    const other = await setup();
    await vapidKeysFor({ accountId });
    const [row] = await getDb().select().from(schema.pushVapidKeys).where(and(eq(schema.pushVapidKeys.accountId, accountId)));
    expect(row.privateKeySealed.startsWith('v1.')).toBe(true);
    expect((await vapidKeysFor({ accountId })).privateKey()).toHaveLength(43);
    const theirs = await createPushSegment({ accountId: other.accountId, actorId: other.actorId, name: 'Theirs', actionOperator: 'AND', actions: [], propertyOperator: 'AND', properties: [] });
    await expect(createPushCampaign({ accountId, actorId, name: 'x', pushSegmentId: theirs.id, title: 't', body: 'b', url: 'https://x.example' })).rejects.toThrow(/Push segment must be specified/);
  });

  it('is the plan flag campaigns/webPush (ADR 114): Trial, Growth and Enterprise have it; without it the widget gets no key and cannot subscribe', async () => {
    const growth = PLAN_CATALOGUE.find((p) => p.key === 'growth')!;
    const starter = PLAN_CATALOGUE.find((p) => p.key === 'starter')!;
    expect(hasFeature(growth.features, 'campaigns/webPush')).toBe(true);
    expect(hasFeature(starter.features, 'campaigns/webPush')).toBe(false);
    const { accountId, inbox } = await setup();
    expect(await pushAllowed(accountId)).toBe(true);
    await givePlan(accountId, { campaigns: { enabled: true, emailCampaigns: true }, chatMessenger: { enabled: true } });
    expect(await pushAllowed(accountId)).toBe(false);
    const { visitor, token } = await startVisitor({ inbox });
    const route = await import('../../app/routes/public.widget.$op');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const key = await route.loader({ request: new Request('http://app.test/public/widget/push', { headers }), params: { op: 'push' }, context: {} });
    expect((key as Response).status).toBe(403);
    expect(await (key as Response).json()).toEqual({ error: PUSH_NOT_IN_PLAN_MESSAGE });
    const sub = push.subscribe();
    const posted = await route.action({ request: new Request('http://app.test/public/widget/push', { method: 'POST', headers, body: JSON.stringify(sub.json) }), params: { op: 'push' }, context: {} });
    expect((posted as Response).status).toBe(403);
    const rows = await getDb().select().from(schema.pushSubscriptions).where(and(eq(schema.pushSubscriptions.accountId, accountId), eq(schema.pushSubscriptions.visitorId, visitor.id)));
    expect(rows).toEqual([]);
  });

  it('refuses a subscription whose keys or endpoint are not valid', async () => {
    const { inbox } = await setup();
    const { visitor } = await startVisitor({ inbox });
    const sub = push.subscribe();
    await expect(subscribePush({ visitor, input: { ...sub.json, keys: { p256dh: 'AAAA', auth: sub.json.keys.auth } }, userAgent: CHROME_WIN })).rejects.toThrow(/p256dh/);
    await expect(subscribePush({ visitor, input: { ...sub.json, endpoint: 'ftp://push.example/x' }, userAgent: CHROME_WIN })).rejects.toThrow(/https/);
  });
});
