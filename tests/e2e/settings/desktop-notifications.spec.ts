import { expect, test } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { vapidKeysFor } from '../../../app/models/campaigns/push.server';
import { assignConversations, openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { updateNotificationPreferences } from '../../../app/models/users/profile.server';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '../../../app/models/users/constants';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { standInPushManager, type StandInState } from '../../helpers/stand-ins/push-manager';
import { startPushService } from '../../helpers/stand-ins/push-service';
import { hydrated, signIn, toast, url } from '../helpers';

/**
 * Desktop notifications for agents (ADR 155) in a real Chromium.
 *
 * WHAT IS STOOD IN, and only that: Chromium cannot reach a push service from this machine, so PushManager.subscribe is
 * the stand-in of tests/helpers/stand-ins/push-manager.ts (keys made in the page with WebCrypto, an endpoint on the
 * local push service stand-in, which the test hands the page's private key). Real: the notification permission
 * (granted to the context), Settings → Notification's script asking for it and registering /agent-sw.js from the
 * account host, the save posting the subscription, the engine's notifications.push job after a real assignment,
 * web-push's encryption and VAPID signature (checked and decrypted by the stand-in), and the service worker showing
 * the notification once the payload is delivered into it through the DevTools protocol (what the push service would do).
 */

async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Ana', email: `ana-${a.account.id}@example.test` });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Desk', channelType: 'internal' });
  const opened = await getDb().transaction((tx) =>
    openConversation({ tx, accountId: a.account.id, inboxId: inbox.id, sourceType: 'internal_ticket', subject: 'Printer on fire', contact: { email: 'c@example.test' }, message: { kind: 'incoming', text: 'Help' } }),
  );
  const assign = () => assignConversations({ accountId: a.account.id, actorId: a.owner.id, ids: [opened.conversation.id], assigneeId: agent.id, teamId: null });
  return { ...a, agent, conversationId: opened.conversation.id, assign, signInAgent: { domain: a.domain, email: agent.email, password: TEST_PASSWORD } };
}

const agentSubscriptions = (accountId: number, userId: number) =>
  getDb()
    .select()
    .from(schema.agentPushSubscriptions)
    .where(and(eq(schema.agentPushSubscriptions.accountId, accountId), eq(schema.agentPushSubscriptions.userId, userId)));

test('an agent turns browser notifications on; an assignment is pushed by the engine, encrypted, and the real service worker shows it with the conversation as its click target', async ({ browser }) => {
  test.setTimeout(180_000);
  const push = await startPushService();
  const context = await browser.newContext({ javaScriptEnabled: true, permissions: ['notifications'] });
  try {
    const s = await setup();
    await context.addInitScript(standInPushManager, push.origin);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await signIn(page, s.signInAgent);
    await page.goto(url('/settings/notification', s.domain));
    await hydrated(page);
    await expect(page.getByTestId('no-push-browsers')).toBeVisible();
    await page.getByLabel('Browser push notifications').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toast(page)).toContainText('This browser shows desktop notifications');

    // The account host's own service worker, scope the whole host; subscribed with the account's (campaigns') VAPID key.
    const origin = url('', s.domain);
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL)).toBe(`${origin}/agent-sw.js`);
    const state = await page.evaluate(() => (window as unknown as { __pushStandIn: StandInState }).__pushStandIn);
    expect(state.applicationServerKey).toBe((await vapidKeysFor({ accountId: s.account.id })).publicKey);
    expect(state.userVisibleOnly).toBe(true);
    const rows = await agentSubscriptions(s.account.id, s.agent.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: `${push.origin}/push/${state.keys!.id}`, p256dh: state.keys!.p256dh, auth: state.keys!.auth });
    await expect(page.getByTestId('push-browsers')).toContainText('Chrome on Linux');

    // A real event: the owner assigns the conversation to the agent; the engine pushes it.
    push.adopt(state.keys!);
    await s.assign();
    await expect.poll(() => push.received.length, { timeout: 60_000 }).toBe(1);
    expect(push.refused).toEqual([]);
    expect(push.received[0].vapidKey).toBe(state.applicationServerKey);
    const payload = push.received[0].payload as { title: string; body: string; url: string; tag: string };
    expect(payload.title).toBe(`Assigned to you: #${s.conversationId} Printer on fire`);
    expect(payload.url).toBe(`${origin}/inbox/${s.conversationId}`);

    // The push service's last step, through DevTools: the payload goes into the real service worker, which shows it.
    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) =>
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => {
        const found = e.registrations.find((r) => r.scopeURL === `${origin}/`);
        if (found) resolve(found.registrationId);
      }),
    );
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: await registrationId, data: JSON.stringify(payload) });
    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const reg = await navigator.serviceWorker.getRegistration('/');
            return (await reg!.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url?: string } | null)?.url }));
          }),
        { timeout: 30_000 },
      )
      .toEqual([{ title: payload.title, body: '', tag: payload.tag, url: `${origin}/inbox/${s.conversationId}` }]);
    // The send is recorded on the browser's row, and the page says so.
    await expect.poll(async () => (await agentSubscriptions(s.account.id, s.agent.id))[0].lastSuccessAt, { timeout: 10_000 }).not.toBeNull();
    await page.reload();
    await expect(page.getByTestId('push-browsers')).toContainText('last delivered');

    // Turned off: this browser's subscription ends and no browser of the agent is pushed to.
    await hydrated(page);
    await page.evaluate(async () => {
      // The reload lost the page's stand-in subscription; the browser still holds one as far as the page knows.
      const reg = await navigator.serviceWorker.getRegistration('/');
      await reg!.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: new Uint8Array(65) });
    });
    await page.getByLabel('Browser push notifications').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toast(page)).toContainText('Settings Updated');
    await expect(page.getByTestId('no-push-browsers')).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __pushStandIn: StandInState }).__pushStandIn.unsubscribed)).toBe(1);
    expect(await agentSubscriptions(s.account.id, s.agent.id)).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    await push.close();
  }
});

test('without JavaScript the page says browser notifications need it, and saving the option says no browser shows them yet', async ({ page }) => {
  const s = await setup();
  await signIn(page, s.signInAgent);
  await page.goto(url('/settings/notification', s.domain));
  await expect(page.getByTestId('browser-push-needs-js')).toContainText('Browser notifications need JavaScript in this browser');
  await page.getByLabel('Browser push notifications').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toContainText('No browser shows your desktop notifications yet');
  await expect(page.getByLabel('Browser push notifications')).toBeChecked();
  expect(await agentSubscriptions(s.account.id, s.agent.id)).toEqual([]);
  // The service worker is served from the account host.
  const sw = await page.goto(url('/agent-sw.js', s.domain));
  expect(sw!.status()).toBe(200);
  expect(sw!.headers()['content-type']).toContain('application/javascript');
  expect(await sw!.text()).toContain("addEventListener('notificationclick'");
});

test('an open tab that is hidden shows the notification itself when this browser has no push subscription; a click opens the conversation', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ javaScriptEnabled: true, permissions: ['notifications'] });
  try {
    const s = await setup();
    await updateNotificationPreferences({ accountId: s.account.id, userId: s.agent.id, preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, browserPush: true } });
    // The tab is in the background (headless pages are always visible), and the notifications it makes are kept.
    await context.addInitScript(() => {
      Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
      const Real = window.Notification;
      const shown: Notification[] = [];
      (window as unknown as { __shown: Notification[] }).__shown = shown;
      class Kept extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          shown.push(this);
        }
      }
      (window as unknown as { Notification: typeof Notification }).Notification = Kept as typeof Notification;
    });
    const page = await context.newPage();
    await signIn(page, s.signInAgent);
    await page.goto(url('/inbox', s.domain));
    await hydrated(page);
    await s.assign();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __shown: Notification[] }).__shown.map((n) => ({ title: n.title, tag: n.tag }))), { timeout: 30_000 })
      .toEqual([{ title: `Assigned to you: #${s.conversationId} Printer on fire`, tag: expect.stringMatching(/^parley-notification-\d+$/) }]);
    await page.evaluate(() => (window as unknown as { __shown: Notification[] }).__shown[0].onclick?.(new Event('click')));
    await expect(page).toHaveURL(url(`/inbox/${s.conversationId}`, s.domain));
  } finally {
    await context.close();
  }
});
