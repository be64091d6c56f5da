import { and, eq, isNull, sql } from 'drizzle-orm';
import webpush from 'web-push';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import { accountLink } from '../../utils/tenant.server';
import { accountHasFeature } from '../accounts/accounts.server';
import { emitEvent } from '../events/events.server';
import type { WidgetVisitor } from '../channels/widget.server';
import type { Campaign } from './campaigns.server';
import { PUSH_BROWSERS } from './push-constants';
import { signTracking, verifyTracking } from './tracking.server';

/**
 * Web push (ADR 083): VAPID keys per account (RFC 8292), subscriptions made through the messenger, and the sender
 * that encrypts each notification to its subscription (RFC 8291, aes128gcm) with `web-push` and posts it to the
 * push service (RFC 8030) through Parley's outbound guard.
 */

const sub = schema.pushSubscriptions;
const keys = schema.pushVapidKeys;
const PURPOSE = 'push-vapid';

/** A push service answer that ends the subscription for good (RFC 8030 §7.3: 404 and 410). */
export class PushGoneError extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`The push service answered ${status}: the subscription is gone`);
    this.status = status;
  }
}

/** The account's VAPID key pair, made the first time it is needed (one per account; the private key sealed). */
export async function vapidKeysFor(opts: { accountId: number }, db: DbOrTx = getDb()) {
  const read = async () => {
    const [row] = await db.select().from(keys).where(eq(keys.accountId, opts.accountId));
    return row;
  };
  let row = await read();
  if (!row) {
    const pair = webpush.generateVAPIDKeys();
    await db
      .insert(keys)
      .values({ accountId: opts.accountId, publicKey: pair.publicKey, privateKeySealed: sealSecret(pair.privateKey, { accountId: opts.accountId, purpose: PURPOSE }) })
      .onConflictDoNothing();
    row = (await read())!;
  }
  return { publicKey: row.publicKey, privateKey: () => openSecret(row.privateKeySealed, { accountId: opts.accountId, purpose: PURPOSE }) };
}

/** The `sub` claim of the VAPID JWT: how a push service reaches the sender (an https URL or mailto). */
export function vapidSubject() {
  return process.env.PARLEY_PUSH_SUBJECT || `mailto:push@${getConfig().appHost.replace(/:\d+$/, '')}`;
}

export function describeBrowser(userAgent: string | null | undefined) {
  const ua = userAgent ?? '';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\/|Opera/.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrome\/|Chromium\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : null;
  const win = /Windows NT (\d+\.\d+)/.exec(ua);
  const os = win
    ? ({ '10.0': 'Windows 10.0', '6.3': 'Windows 8.1', '6.2': 'Windows 8.0', '6.1': 'Windows 7.0' } as Record<string, string>)[win[1]] ?? 'other'
    : /Mac OS X|Macintosh/.test(ua) && !/iPhone|iPad/.test(ua)
      ? 'OS X'
      : /Linux/.test(ua) && !/Android/.test(ua)
        ? 'Linux'
        : 'other';
  const platform: 'desktop' | 'mobile' = /Mobi|Android|iPhone|iPad/.test(ua) ? 'mobile' : 'desktop';
  return { browser: browser && (PUSH_BROWSERS as readonly string[]).includes(browser) ? browser : null, os, platform };
}

const SEARCH_ENGINES = /(^|\.)(google|bing|duckduckgo|yahoo|baidu|yandex|ecosia|qwant|startpage)\.[a-z.]+$/i;

export function referrerTypeOf(referrer: string | null | undefined): 'direct' | 'searchEngine' | 'refferal' {
  if (!referrer) return 'direct';
  try {
    return SEARCH_ENGINES.test(new URL(referrer).hostname) ? 'searchEngine' : 'refferal';
  } catch {
    return 'direct';
  }
}

function isTimeZone(tz: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export class PushInputError extends Error {}

/** The plan flag of web push (ADR 114): the widget's key and subscribe calls refuse an account without it. */
export const PUSH_NOT_IN_PLAN_MESSAGE = 'Web push notifications are not part of this account\'s plan';
export async function pushAllowed(accountId: number, db: DbOrTx = getDb()) {
  return accountHasFeature({ accountId, key: 'campaigns/webPush' }, db);
}

export type PushSubscriptionInput = {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  url?: string | null;
  referrer?: string | null;
  timezone?: string | null;
};

/** The endpoint must be the push service's https URL (http only where private destinations are allowed, for tests). */
export function checkEndpoint(endpoint: string) {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    throw new PushInputError('The subscription endpoint is not a valid URL');
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && getConfig().allowPrivateDestinations)) throw new PushInputError('The subscription endpoint must be an https URL');
}

/** The subscription's keys (RFC 8291): an uncompressed P-256 point and a 16-byte secret. Agents' subscriptions too (ADR 155). */
export function checkKeys(k: PushSubscriptionInput['keys']) {
  const p256dh = Buffer.from(k.p256dh, 'base64url');
  const auth = Buffer.from(k.auth, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 4) throw new PushInputError('The subscription key p256dh is not a P-256 public key');
  if (auth.length !== 16) throw new PushInputError('The subscription secret auth must be 16 bytes');
}

/**
 * A visitor of the messenger subscribed (the widget posts PushSubscription.toJSON() with the page's facts). Stored once
 * per endpoint and account (a second subscribe updates it), with the visitor's contact, in one transaction with its event.
 */
export async function subscribePush(opts: { visitor: WidgetVisitor; input: PushSubscriptionInput; userAgent: string | null; country?: string | null }) {
  const { visitor, input } = opts;
  checkEndpoint(input.endpoint);
  checkKeys(input.keys);
  const facts = describeBrowser(opts.userAgent);
  const timezone = input.timezone && isTimeZone(input.timezone) ? input.timezone : null;
  const values = {
    accountId: visitor.accountId,
    inboxId: visitor.inboxId,
    visitorId: visitor.id,
    contactId: visitor.contactId,
    endpoint: input.endpoint,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    pageUrl: input.url?.slice(0, 2000) ?? null,
    referrer: input.referrer?.slice(0, 2000) || null,
    referrerType: referrerTypeOf(input.referrer),
    ...facts,
    location: opts.country?.toUpperCase().slice(0, 2) ?? null,
    timezone,
  };
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(sub)
      .values(values)
      .onConflictDoUpdate({ target: [sub.accountId, sub.endpoint], set: { p256dh: values.p256dh, auth: values.auth, visitorId: values.visitorId, contactId: values.contactId, seenAt: new Date() } })
      .returning({ id: sub.id });
    await emitEvent(tx, {
      accountId: visitor.accountId,
      type: 'push_subscribed',
      subjectType: 'push_subscription',
      subjectId: row.id,
      payload: { contactId: visitor.contactId ?? null, browser: values.browser, os: values.os },
      actor: { type: 'system' },
    });
    return row;
  });
}

/**
 * A subscribed visitor came back (ADR 115): the widget says so in its session call (it remembers that this browser
 * subscribed), and the facts push segments match on are refreshed in one indexed UPDATE of this visitor's
 * subscriptions: the page, the browser read from the User-Agent, the time zone, the country, and the visit's time
 * (day and hour conditions). The referrer changes only on an arrival from elsewhere (none, or another host): moving
 * between the site's own pages keeps how the visitor came. Visitors without a subscription never reach this.
 */
export async function refreshPushFacts(opts: {
  visitor: Pick<WidgetVisitor, 'accountId' | 'id'>;
  url: string;
  referrer?: string | null;
  timezone?: string | null;
  userAgent: string | null;
  country?: string | null;
  now?: Date;
}) {
  let pageHost: string;
  try {
    const page = new URL(opts.url);
    if (page.protocol !== 'http:' && page.protocol !== 'https:') return 0;
    pageHost = page.hostname;
  } catch {
    return 0;
  }
  let arrival = !opts.referrer;
  if (opts.referrer) {
    try {
      arrival = new URL(opts.referrer).hostname !== pageHost;
    } catch {
      arrival = false;
    }
  }
  const set: Partial<typeof sub.$inferInsert> = {
    pageUrl: opts.url.slice(0, 2000),
    ...describeBrowser(opts.userAgent),
    seenAt: opts.now ?? new Date(),
  };
  if (arrival) Object.assign(set, { referrer: opts.referrer?.slice(0, 2000) || null, referrerType: referrerTypeOf(opts.referrer) });
  if (opts.timezone && isTimeZone(opts.timezone)) set.timezone = opts.timezone;
  if (opts.country) set.location = opts.country.toUpperCase().slice(0, 2);
  const rows = await getDb()
    .update(sub)
    .set(set)
    .where(and(eq(sub.accountId, opts.visitor.accountId), eq(sub.visitorId, opts.visitor.id)))
    .returning({ id: sub.id });
  return rows.length;
}

/** The account's web push subscriptions, counted (the push segment screens show it). */
export async function countPushSubscriptions(opts: { accountId: number }) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(sub)
    .where(eq(sub.accountId, opts.accountId));
  return row.n;
}

/** Recipient rows of a push campaign name their subscription as `push:<id>` (unique per campaign, like an address). */
export const pushAddress = (subscriptionId: number) => `push:${subscriptionId}`;

export function pushLinks(domain: string, accountId: number, recipientId: number) {
  return {
    click: (url: string) => accountLink(domain, `/c/c/${signTracking({ k: 'c', a: accountId, r: recipientId, u: url })}`),
    delivered: accountLink(domain, `/public/push/delivered/${signTracking({ k: 'd', a: accountId, r: recipientId })}`),
  };
}

/** The sender of a push campaign for the bulk-send loop: one encrypted POST per recipient. */
export async function pushSenderOf(campaign: Campaign) {
  const vapid = await vapidKeysFor({ accountId: campaign.accountId });
  const privateKey = vapid.privateKey();
  const [account] = await getDb().select({ domain: schema.accounts.domain }).from(schema.accounts).where(eq(schema.accounts.id, campaign.accountId));
  const push = campaign.push ?? { icon: null, url: '' };
  return {
    send: async (one: { id: number; address: string }) => {
      const subscriptionId = Number(one.address.replace(/^push:/, ''));
      const [s] = await getDb()
        .select()
        .from(sub)
        .where(and(eq(sub.accountId, campaign.accountId), eq(sub.id, subscriptionId)));
      if (!s) throw new PushGoneError(410);
      const links = pushLinks(account!.domain, campaign.accountId, one.id);
      const payload = JSON.stringify({
        title: campaign.subject,
        body: campaign.bodyText,
        icon: push.icon || undefined,
        url: links.click(push.url),
        delivered: links.delivered,
        tag: `parley-${campaign.id}`,
      });
      const details = webpush.generateRequestDetails({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, payload, {
        vapidDetails: { subject: vapidSubject(), publicKey: vapid.publicKey, privateKey },
        TTL: 24 * 3600,
        contentEncoding: 'aes128gcm',
      });
      const res = await guardedRequest(details.endpoint, { method: details.method, headers: details.headers as Record<string, string>, body: details.body as Buffer, timeoutMs: 15_000 });
      if (res.status === 404 || res.status === 410) {
        // The browser unsubscribed or the subscription expired: it is removed, so no later campaign tries it.
        await getDb()
          .delete(sub)
          .where(and(eq(sub.accountId, campaign.accountId), eq(sub.id, s.id)));
        throw new PushGoneError(res.status);
      }
      if (!res.ok) throw Object.assign(new Error(`The push service answered ${res.status}`), { status: res.status });
    },
    // A gone subscription fails this recipient only; anything else (429, 5xx, a refused address) stops the slice and is retried.
    isRefusal: (err: unknown) => err instanceof PushGoneError,
  };
}

/** The service worker reports a notification shown: counted once per recipient (a forged link is refused). */
export async function recordPushDelivered(token: string) {
  const p = verifyTracking(token, 'd');
  if (!p) return false;
  const r = schema.campaignRecipients;
  const c = schema.campaigns;
  await getDb().transaction(async (tx) => {
    const [first] = await tx
      .update(r)
      .set({ deliveredAt: new Date() })
      .where(and(eq(r.accountId, p.a), eq(r.id, p.r), isNull(r.deliveredAt)))
      .returning({ id: r.id, campaignId: r.campaignId });
    if (!first) return;
    await tx.insert(schema.campaignEvents).values({ accountId: p.a, campaignId: first.campaignId, recipientId: first.id, kind: 'delivered' });
    await tx
      .update(c)
      .set({ deliveredCount: sql`${c.deliveredCount} + 1` })
      .where(and(eq(c.accountId, p.a), eq(c.id, first.campaignId)));
  });
  return true;
}

/** The service worker Parley serves (the customer's site imports it from a one-line file; ADR 083). */
export const SERVICE_WORKER_JS = `/* Parley web push service worker (ADR 083). Import it from a file at your site's root:
   importScripts('ORIGIN/public/push-sw.js'); */
self.addEventListener('push', function (event) {
  var d = {};
  try { d = event.data ? event.data.json() : {}; } catch (e) { d = { title: event.data && event.data.text() }; }
  var shown = self.registration.showNotification(d.title || 'Notification', { body: d.body || '', icon: d.icon, tag: d.tag, data: { url: d.url } });
  var ping = d.delivered ? fetch(d.delivered, { method: 'POST', mode: 'no-cors', credentials: 'omit', keepalive: true }).catch(function () {}) : Promise.resolve();
  event.waitUntil(Promise.all([shown, ping]));
});
self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var url = event.notification.data && event.notification.data.url;
  if (url) event.waitUntil(self.clients.openWindow(url));
});
`;
