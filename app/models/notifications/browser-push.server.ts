import { and, desc, eq } from 'drizzle-orm';
import webpush from 'web-push';
import { z } from 'zod';
import { getDb, schema } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { accountLink } from '../../utils/tenant.server';
import { checkEndpoint, checkKeys, PushInputError, vapidKeysFor, vapidSubject } from '../campaigns/push.server';
import { readNotificationPreferences } from '../users/constants';

/**
 * Desktop notifications for agents (ADR 155): the browsers an agent subscribed from Settings → Notification, and the
 * engine job that sends each notification the bell gets (notifyUsers decides who is told) to those browsers through
 * Web Push, encrypted with `web-push` (RFC 8291) and signed with the account's VAPID key, the one campaigns use
 * (ADR 083): one key source per account.
 */

const sub = schema.agentPushSubscriptions;

export { PushInputError };

/** What the settings page posts: PushSubscription.toJSON() of this browser, as JSON text. */
const SubscriptionJsonSchema = z.object({
  endpoint: z.string().max(2000),
  keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(200) }),
});

/** Reads and checks a posted subscription; a clear PushInputError for anything that is not one. */
export function parseAgentPushSubscription(json: string) {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new PushInputError('The browser\'s subscription could not be read: turn the option off and on again');
  }
  const parsed = SubscriptionJsonSchema.safeParse(value);
  if (!parsed.success) throw new PushInputError('The browser\'s subscription could not be read: turn the option off and on again');
  checkEndpoint(parsed.data.endpoint);
  checkKeys(parsed.data.keys);
  return parsed.data;
}

/** Stores this browser's subscription for the agent (one row per endpoint and account; a second subscribe updates it). */
export async function subscribeAgentPush(opts: { accountId: number; userId: number; subscription: ReturnType<typeof parseAgentPushSubscription>; userAgent: string | null }) {
  const s = opts.subscription;
  const values = { accountId: opts.accountId, userId: opts.userId, endpoint: s.endpoint, p256dh: s.keys.p256dh, auth: s.keys.auth, userAgent: opts.userAgent?.slice(0, 500) ?? null };
  const [row] = await getDb()
    .insert(sub)
    .values(values)
    .onConflictDoUpdate({
      target: [sub.accountId, sub.endpoint],
      set: { userId: values.userId, p256dh: values.p256dh, auth: values.auth, userAgent: values.userAgent, createdAt: new Date(), lastSuccessAt: null, lastFailureAt: null, lastFailure: null },
    })
    .returning({ id: sub.id });
  return row;
}

/** Removes one of the agent's browsers (by id or endpoint), or all of them (the option turned off); answers how many. */
export async function unsubscribeAgentPush(opts: { accountId: number; userId: number; id?: number; endpoint?: string }) {
  const rows = await getDb()
    .delete(sub)
    .where(
      and(
        eq(sub.accountId, opts.accountId),
        eq(sub.userId, opts.userId),
        opts.id !== undefined ? eq(sub.id, opts.id) : undefined,
        opts.endpoint !== undefined ? eq(sub.endpoint, opts.endpoint) : undefined,
      ),
    )
    .returning({ id: sub.id });
  return rows.length;
}

/** The agent's subscribed browsers, newest first, with how their last sends went (the settings page lists them). */
export async function listAgentPushSubscriptions(opts: { accountId: number; userId: number }) {
  return getDb()
    .select({ id: sub.id, endpoint: sub.endpoint, userAgent: sub.userAgent, createdAt: sub.createdAt, lastSuccessAt: sub.lastSuccessAt, lastFailureAt: sub.lastFailureAt, lastFailure: sub.lastFailure })
    .from(sub)
    .where(and(eq(sub.accountId, opts.accountId), eq(sub.userId, opts.userId)))
    .orderBy(desc(sub.createdAt), desc(sub.id));
}

/** A readable name for a subscribed browser from its User-Agent ("Chrome on Linux"). */
export function describeAgentBrowser(userAgent: string | null) {
  const ua = userAgent ?? '';
  const browser = /Edg\//.test(ua) ? 'Edge' : /OPR\//.test(ua) ? 'Opera' : /Firefox\//.test(ua) ? 'Firefox' : /Chrome\/|Chromium\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'A browser';
  const os = /Windows/.test(ua) ? 'Windows' : /iPhone|iPad/.test(ua) ? 'iOS' : /Android/.test(ua) ? 'Android' : /Mac OS X|Macintosh/.test(ua) ? 'macOS' : /Linux/.test(ua) ? 'Linux' : null;
  return os ? `${browser} on ${os}` : browser;
}

/** Web Push says how long a push service keeps a message for an offline browser: a notification a day old is stale. */
const PUSH_TTL_SECONDS = 6 * 3600;

/** What the push payload carries (the service worker shows it). */
export type AgentPushPayload = { title: string; body: string; url: string; tag: string };

export class PushSendFailedError extends Error {}

/**
 * The notifications.push job: one notification to every browser its agent subscribed. A 2xx is a success, recorded on
 * the row; 404 and 410 (RFC 8030 §7.3: the browser unsubscribed or the subscription expired) delete the row; any
 * other answer or a network failure is recorded on the row, logged, and fails the job so that pg-boss retries it. A
 * retry sends to every browser again: the notification's tag makes a browser that already shows it replace it
 * silently instead of showing it twice.
 */
export async function sendNotificationPush(opts: { accountId: number; notificationId: number }) {
  const n = schema.notifications;
  const [row] = await getDb()
    .select({ id: n.id, userId: n.userId, title: n.title, body: n.body, link: n.link, readAt: n.readAt, domain: schema.accounts.domain, preferences: schema.users.notificationPreferences, hasAccess: schema.users.hasAccess })
    .from(n)
    .innerJoin(schema.accounts, eq(schema.accounts.id, n.accountId))
    .innerJoin(schema.users, and(eq(schema.users.id, n.userId), eq(schema.users.accountId, n.accountId)))
    .where(and(eq(n.accountId, opts.accountId), eq(n.id, opts.notificationId)));
  if (!row) return { sent: 0, why: 'gone' };
  // Turned off (or access refused) since the notification was made: nothing goes out.
  if (!row.hasAccess || !readNotificationPreferences(row.preferences).browserPush) return { sent: 0, why: 'turned off' };
  if (row.readAt) return { sent: 0, why: 'already read' };
  const subs = await getDb()
    .select()
    .from(sub)
    .where(and(eq(sub.accountId, opts.accountId), eq(sub.userId, row.userId)));
  if (subs.length === 0) return { sent: 0, why: 'no browser' };
  const vapid = await vapidKeysFor({ accountId: opts.accountId });
  const vapidDetails = { subject: vapidSubject(), publicKey: vapid.publicKey, privateKey: vapid.privateKey() };
  const payload: AgentPushPayload = {
    title: row.title,
    body: row.body,
    url: accountLink(row.domain, row.link ?? '/notifications'),
    tag: `parley-notification-${row.id}`,
  };
  const body = JSON.stringify(payload);
  let sent = 0;
  let gone = 0;
  const failures: string[] = [];
  for (const s of subs) {
    let failure: string | null = null;
    try {
      const details = webpush.generateRequestDetails({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, body, {
        vapidDetails,
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
        urgency: 'high',
      });
      const res = await guardedRequest(details.endpoint, { method: details.method, headers: details.headers as Record<string, string>, body: details.body as Buffer, timeoutMs: 15_000 });
      if (res.status === 404 || res.status === 410) {
        await getDb()
          .delete(sub)
          .where(and(eq(sub.accountId, opts.accountId), eq(sub.id, s.id)));
        gone++;
        getLogger().info({ accountId: opts.accountId, userId: row.userId, subscriptionId: s.id, status: res.status }, 'agent push subscription gone: removed');
        continue;
      }
      if (!res.ok) failure = `The push service answered ${res.status}`;
    } catch (err) {
      failure = `The push service could not be reached: ${(err as Error).message}`;
    }
    if (failure) {
      failures.push(failure);
      await getDb()
        .update(sub)
        .set({ lastFailureAt: new Date(), lastFailure: failure.slice(0, 500) })
        .where(and(eq(sub.accountId, opts.accountId), eq(sub.id, s.id)));
      getLogger().warn({ accountId: opts.accountId, userId: row.userId, subscriptionId: s.id, notificationId: row.id, failure }, 'agent push send failed');
    } else {
      sent++;
      await getDb()
        .update(sub)
        .set({ lastSuccessAt: new Date() })
        .where(and(eq(sub.accountId, opts.accountId), eq(sub.id, s.id)));
    }
  }
  if (failures.length) throw new PushSendFailedError(`${failures.length} of ${subs.length} desktop notification sends failed (${failures[0]})`);
  return { sent, gone };
}

/**
 * The agents' service worker, served from the account host at /agent-sw.js with the whole host as its scope: it shows
 * what a push carries and, on a click, brings the conversation up in a Parley tab already open (focused and taken
 * there) or in a new one. It has no fetch handler: pages load from the network as before.
 */
export const AGENT_SERVICE_WORKER_JS = `/* Parley desktop notifications for agents (ADR 155). */
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (event) { event.waitUntil(self.clients.claim()); });
self.addEventListener('push', function (event) {
  var d = {};
  try { d = event.data ? event.data.json() : {}; } catch (e) { d = { title: event.data && event.data.text() }; }
  event.waitUntil(self.registration.showNotification(d.title || 'Parley', { body: d.body || '', tag: d.tag, data: { url: d.url } }));
});
self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var url = event.notification.data && event.notification.data.url;
  if (!url) return;
  event.waitUntil(self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (list) {
    for (var i = 0; i < list.length; i++) if (list[i].url === url) return list[i].focus();
    var tab = list[0];
    if (!tab) return self.clients.openWindow(url);
    return tab.focus().then(function (t) { return (t || tab).navigate(url); }).catch(function () { return self.clients.openWindow(url); });
  }));
});
`;
