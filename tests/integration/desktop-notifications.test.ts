import net from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { checkSlaBreach } from '../../app/models/automation/sla.server';
import { vapidKeysFor } from '../../app/models/campaigns/push.server';
import { assignConversations, openConversation, postMessage } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { addMessage } from '../../app/models/inbox/messages.server';
import {
  AGENT_SERVICE_WORKER_JS,
  describeAgentBrowser,
  listAgentPushSubscriptions,
  parseAgentPushSubscription,
  PushSendFailedError,
  sendNotificationPush,
  subscribeAgentPush,
  unsubscribeAgentPush,
} from '../../app/models/notifications/browser-push.server';
import { listNotifications, markNotificationsRead } from '../../app/models/notifications/notifications.server';
import { updateNotificationPreferences } from '../../app/models/users/profile.server';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '../../app/models/users/constants';
import { QUEUES } from '../../app/utils/jobs.server';
import { accountLink } from '../../app/utils/tenant.server';
import { contentSecurityPolicy } from '../../server/security-headers';
import { createTestAccount, createTestUser } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startPushService } from '../helpers/stand-ins/push-service';

/** ADR 155: what reaches an agent's bell reaches the browsers they subscribed, through Web Push, from the engine. */

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let push: Awaited<ReturnType<typeof startPushService>>;
let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  push = await startPushService();
  app = await startTestApp();
});
afterAll(async () => {
  await push.close();
  await app.close();
});

async function setup(opts: { browserPush?: boolean } = {}) {
  const a = await createTestAccount({ firstName: 'Olive' });
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Ana', email: `ana-${a.account.id}@example.test` });
  const scope = { accountId: a.account.id, userId: agent.id };
  await updateNotificationPreferences({ ...scope, preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, browserPush: opts.browserPush ?? true } });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Desk', channelType: 'internal' });
  const opened = await getDb().transaction((tx) =>
    openConversation({ tx, accountId: a.account.id, inboxId: inbox.id, sourceType: 'internal_ticket', subject: 'Printer on fire', contact: { email: 'c@example.test' }, message: { kind: 'incoming', text: 'Help' } }),
  );
  const browser = async () => {
    const s = push.subscribe();
    await subscribeAgentPush({ ...scope, subscription: parseAgentPushSubscription(JSON.stringify(s.json)), userAgent: CHROME_LINUX });
    return s;
  };
  return { ...a, agent, scope, conversationId: opened.conversation.id, after: await lastEventId(a.account.id), browser };
}

/** The notifications.push jobs queued for an account's notifications. */
async function pushJobs(accountId: number) {
  const rows = await getDb().execute<{ notification_id: string }>(
    `select data->>'notificationId' as notification_id from pgboss.job where name = '${QUEUES.notificationPush}' and data->>'accountId' = '${accountId}' order by created_on`,
  );
  return rows.map((r) => Number(r.notification_id));
}

describe('desktop notifications by Web Push', () => {
  it('an assignment queues a push job in the bell\'s transaction; the job sends the encrypted notification, signed with the campaigns\' VAPID key, and removes a gone browser', async () => {
    const s = await setup();
    const live = await s.browser();
    const gone = await s.browser();
    push.expire(gone.id);
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversationId], assigneeId: s.agent.id, teamId: null });
    await drainEvents(s.account.id, { after: s.after });
    const [n] = await listNotifications(s.scope);
    expect(n.kind).toBe('assigned');
    expect(await pushJobs(s.account.id)).toEqual([n.id]);

    const before = push.received.length;
    expect(await sendNotificationPush({ accountId: s.account.id, notificationId: n.id })).toEqual({ sent: 1, gone: 1 });
    const got = push.received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0].subscription).toBe(live.id);
    expect(got[0].payload).toEqual({
      title: `Assigned to you: #${s.conversationId} Printer on fire`,
      body: '',
      url: accountLink(s.account.domain, `/inbox/${s.conversationId}`),
      tag: `parley-notification-${n.id}`,
    });
    // One key source: the account's VAPID key that campaigns use.
    expect(got[0].vapidKey).toBe((await vapidKeysFor({ accountId: s.account.id })).publicKey);
    expect(got[0].ttl).toBeGreaterThan(0);
    const rows = await listAgentPushSubscriptions(s.scope);
    expect(rows).toHaveLength(1);
    expect(rows[0].lastSuccessAt).not.toBeNull();
    expect(rows[0].lastFailureAt).toBeNull();
    expect(describeAgentBrowser(rows[0].userAgent)).toBe('Chrome on Linux');
  });

  it('a reply in their conversation, a mention and an SLA breach are pushed too; the author is not, and an agent with the option off or no browser gets no job', async () => {
    const s = await setup();
    await s.browser();
    const other = await createTestUser({ accountId: s.account.id, roleKind: 'agent', firstName: 'Bo', email: `bo-${s.account.id}@example.test` });
    // Bo subscribed a browser once but has the option off: nothing is queued for him.
    await updateNotificationPreferences({ accountId: s.account.id, userId: other.id, preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, browserPush: false } });
    const bo = push.subscribe();
    await subscribeAgentPush({ accountId: s.account.id, userId: other.id, subscription: parseAgentPushSubscription(JSON.stringify(bo.json)), userAgent: null });

    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversationId], assigneeId: s.agent.id, teamId: null });
    await getDb().transaction((tx) => addMessage(tx, { accountId: s.account.id, conversationId: s.conversationId, kind: 'incoming', text: 'It is still burning' }));
    await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'note', text: '@Ana and @Bo look at this' });
    const past = new Date(Date.now() - 1000);
    await getDb().update(schema.conversations).set({ firstResponseDueAt: past }).where(eq(schema.conversations.id, s.conversationId));
    expect((await checkSlaBreach({ accountId: s.account.id, conversationId: s.conversationId, target: 'response', dueAt: past.toISOString() })).breached).toBe(true);
    await drainEvents(s.account.id, { after: s.after });

    const mine = await listNotifications(s.scope);
    expect(mine.map((n) => n.kind).sort()).toEqual(['assigned', 'customer_message', 'mention', 'sla_breached']);
    // Bo's bell rang for the mention; no push job for him.
    expect((await listNotifications({ accountId: s.account.id, userId: other.id })).map((n) => n.kind)).toEqual(['mention']);
    expect((await pushJobs(s.account.id)).sort()).toEqual(mine.map((n) => n.id).sort());

    const before = push.received.length;
    for (const n of mine) await sendNotificationPush({ accountId: s.account.id, notificationId: n.id });
    const titles = push.received.slice(before).map((r) => (r.payload as { title: string }).title);
    expect(titles.sort()).toEqual(mine.map((n) => n.title).sort());
    expect(push.received.slice(before).find((r) => (r.payload as { title: string }).title.startsWith('New message'))?.payload).toMatchObject({ body: 'It is still burning' });

    // Read in the bell before the job ran, or the option turned off since: nothing goes out.
    const fresh = await setup();
    await fresh.browser();
    await assignConversations({ accountId: fresh.account.id, actorId: fresh.owner.id, ids: [fresh.conversationId], assigneeId: fresh.agent.id, teamId: null });
    await drainEvents(fresh.account.id, { after: fresh.after });
    const [n] = await listNotifications(fresh.scope);
    await markNotificationsRead({ ...fresh.scope, id: n.id });
    expect(await sendNotificationPush({ accountId: fresh.account.id, notificationId: n.id })).toMatchObject({ sent: 0, why: 'already read' });
  });

  it('no browser subscribed: the bell rings, no job is queued', async () => {
    const s = await setup();
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversationId], assigneeId: s.agent.id, teamId: null });
    await drainEvents(s.account.id, { after: s.after });
    expect(await listNotifications(s.scope)).toHaveLength(1);
    expect(await pushJobs(s.account.id)).toEqual([]);
  });

  it('a push service that cannot be reached: the failure is recorded on the browser and the job fails (pg-boss retries it)', async () => {
    const s = await setup();
    // A port nobody listens on: the connection is refused.
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const s1 = push.subscribe();
    await subscribeAgentPush({ ...s.scope, subscription: parseAgentPushSubscription(JSON.stringify({ ...s1.json, endpoint: `http://127.0.0.1:${closed}/push/x` })), userAgent: CHROME_LINUX });
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversationId], assigneeId: s.agent.id, teamId: null });
    await drainEvents(s.account.id, { after: s.after });
    const [n] = await listNotifications(s.scope);
    await expect(sendNotificationPush({ accountId: s.account.id, notificationId: n.id })).rejects.toBeInstanceOf(PushSendFailedError);
    const [row] = await listAgentPushSubscriptions(s.scope);
    expect(row.lastFailureAt).not.toBeNull();
    expect(row.lastFailure).toMatch(/^The push service could not be reached/);
    expect(row.lastSuccessAt).toBeNull();
  });

  it('refuses what is not a subscription with a clear message; removes only the agent\'s own browsers', async () => {
    expect(() => parseAgentPushSubscription('not json')).toThrow('The browser\'s subscription could not be read');
    expect(() => parseAgentPushSubscription(JSON.stringify({ endpoint: 'https://push.example/x' }))).toThrow('The browser\'s subscription could not be read');
    expect(() => parseAgentPushSubscription(JSON.stringify({ endpoint: 'ftp://push.example/x', keys: { p256dh: 'a', auth: 'b' } }))).toThrow('must be an https URL');
    expect(() => parseAgentPushSubscription(JSON.stringify({ endpoint: 'https://push.example/x', keys: { p256dh: 'AAAA', auth: 'b' } }))).toThrow('not a P-256 public key');

    const s = await setup();
    await s.browser();
    const [row] = await listAgentPushSubscriptions(s.scope);
    // Another user of the account, or of another account, removes nothing.
    expect(await unsubscribeAgentPush({ accountId: s.account.id, userId: s.owner.id, id: row.id })).toBe(0);
    const b = await createTestAccount();
    expect(await unsubscribeAgentPush({ accountId: b.account.id, userId: s.agent.id, id: row.id })).toBe(0);
    expect(await unsubscribeAgentPush({ ...s.scope, id: row.id })).toBe(1);
    expect(await listAgentPushSubscriptions(s.scope)).toEqual([]);
    // The same browser subscribed by another agent of the account (a shared desk) now belongs to them.
    const again = push.subscribe();
    const parsed = parseAgentPushSubscription(JSON.stringify(again.json));
    await subscribeAgentPush({ ...s.scope, subscription: parsed, userAgent: null });
    await subscribeAgentPush({ accountId: s.account.id, userId: s.owner.id, subscription: parsed, userAgent: null });
    expect(await listAgentPushSubscriptions(s.scope)).toEqual([]);
    const owners = await getDb()
      .select({ userId: schema.agentPushSubscriptions.userId })
      .from(schema.agentPushSubscriptions)
      .where(and(eq(schema.agentPushSubscriptions.accountId, s.account.id), eq(schema.agentPushSubscriptions.endpoint, again.json.endpoint)));
    expect(owners).toEqual([{ userId: s.owner.id }]);
  });

  it('the service worker shows the push and opens its url; the page policy lets it register', () => {
    expect(AGENT_SERVICE_WORKER_JS).toContain("addEventListener('push'");
    expect(AGENT_SERVICE_WORKER_JS).toContain('showNotification');
    expect(AGENT_SERVICE_WORKER_JS).toContain("addEventListener('notificationclick'");
    expect(contentSecurityPolicy('n')).toContain("worker-src 'self'");
  });

  it('Settings → Notification: a posted subscription is stored with the save; a bad one is a 400 that saves nothing; off removes every browser; Remove takes one', async () => {
    const s = await setup({ browserPush: false });
    const cookie = await sessionCookie({ domain: s.account.domain, accountId: s.account.id, userId: s.agent.id });
    const form = { intent: 'save', emailOnAssignment: 'on', browserPush: 'on' };
    const bad = await app.request('/settings/notification', { domain: s.account.domain, cookie, form: { ...form, pushSubscription: '{"endpoint":"ftp://x"}' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('The browser&#x27;s subscription could not be read');
    const [user] = await getDb().select().from(schema.users).where(eq(schema.users.id, s.agent.id));
    expect(user.notificationPreferences.browserPush).toBe(false);
    expect(await listAgentPushSubscriptions(s.scope)).toEqual([]);

    const one = push.subscribe();
    const ok = await app.request('/settings/notification', { domain: s.account.domain, cookie, form: { ...form, pushSubscription: JSON.stringify(one.json) } });
    expect(ok.status).toBe(302);
    const rows = await listAgentPushSubscriptions(s.scope);
    // (This client sends no User-Agent: the page names it plainly.)
    expect(rows.map((r) => [r.endpoint, describeAgentBrowser(r.userAgent)])).toEqual([[one.json.endpoint, 'A browser']]);
    const page = await app.request('/settings/notification', { domain: s.account.domain, cookie });
    expect(page.text).toContain('data-testid="push-browsers"');

    // Another agent cannot remove it; its owner can.
    const ownerCookie = await sessionCookie({ domain: s.account.domain, accountId: s.account.id, userId: s.owner.id });
    await app.request('/settings/notification', { domain: s.account.domain, cookie: ownerCookie, form: { intent: 'remove-browser', id: String(rows[0].id) } });
    expect(await listAgentPushSubscriptions(s.scope)).toHaveLength(1);
    expect((await app.request('/settings/notification', { domain: s.account.domain, cookie, form: { intent: 'remove-browser', id: 'x' } })).status).toBe(400);
    await app.request('/settings/notification', { domain: s.account.domain, cookie, form: { intent: 'remove-browser', id: String(rows[0].id) } });
    expect(await listAgentPushSubscriptions(s.scope)).toEqual([]);

    // Saved off: every browser of the agent goes.
    await subscribeAgentPush({ ...s.scope, subscription: parseAgentPushSubscription(JSON.stringify(push.subscribe().json)), userAgent: null });
    await subscribeAgentPush({ ...s.scope, subscription: parseAgentPushSubscription(JSON.stringify(push.subscribe().json)), userAgent: null });
    expect((await app.request('/settings/notification', { domain: s.account.domain, cookie, form: { intent: 'save', emailOnAssignment: 'on' } })).status).toBe(302);
    expect(await listAgentPushSubscriptions(s.scope)).toEqual([]);
  });
});
