import http from 'node:http';
import { expect, test } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createPushCampaign, getCampaign, scheduleCampaign } from '../../../app/models/campaigns/campaigns.server';
import { createPushSegment } from '../../../app/models/campaigns/push-segments.server';
import { vapidKeysFor } from '../../../app/models/campaigns/push.server';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createTestAccount } from '../../factories';
import { standInPushManager, type StandInState } from '../../helpers/stand-ins/push-manager';
import { startPushService } from '../../helpers/stand-ins/push-service';
import { port } from '../helpers';

/**
 * The widget's web push opt-in in a real browser, JavaScript on (ADR 083, 115).
 *
 * WHAT IS STOOD IN, and only that: Chromium cannot reach a push service from this machine, so an init script replaces
 * the browser's `PushManager.prototype.subscribe` (and `getSubscription`) with one that makes the subscription itself:
 * a P-256 key pair and a 16-byte auth secret generated in the page with WebCrypto, and an endpoint on the local push
 * service stand-in (tests/helpers/stand-ins/push-service.ts). The test then hands the page's private key to the
 * stand-in, as a real push service would hand the encrypted message to the browser that holds the key.
 *
 * Real: the customer's page on its own origin with the messenger snippet, the messenger's "Get notifications" button,
 * the browser's notification permission (granted to the context), the service worker registered from the site's
 * one-line `/parley-sw.js` that imports Parley's `/public/push-sw.js`, the widget's opt-in script reading the account's
 * VAPID key, `POST /public/widget/push`, a later visit refreshing the segment facts, and a push campaign sent by the
 * engine through web-push (aes128gcm, VAPID JWT), which the stand-in verifies and decrypts with the page's key.
 * Finally the decrypted payload is handed to the real service worker through the DevTools protocol's
 * `ServiceWorker.deliverPushMessage` (what the push service would do), which shows the notification and reports it
 * delivered through its signed link.
 */
let site: http.Server;
let sitePort: number;
let inboxIdForSite = 0;

test.beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === '/parley-sw.js') {
      res.writeHead(200, { 'content-type': 'application/javascript' });
      return void res.end(`importScripts('http://localhost:${port()}/public/push-sw.js');\n`);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Shop</title></head><body><h1>${req.url?.startsWith('/pricing') ? 'Pricing' : 'Shop'}</h1>
<script src="http://localhost:${port()}/public/widget.js" data-inbox="${inboxIdForSite}" data-push-worker="/parley-sw.js" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

test('a visitor subscribes through the messenger in a real browser; a later visit refreshes the facts; a push campaign reaches the page-made keys', async ({ browser }) => {
  test.setTimeout(120_000);
  const push = await startPushService();
  const context = await browser.newContext({ javaScriptEnabled: true, permissions: ['notifications'] });
  try {
    const a = await createTestAccount();
    const accountId = a.account.id;
    const inbox = await createWebInbox({ accountId, actorId: a.owner.id, name: 'Shop chat' });
    inboxIdForSite = inbox.id;
    await context.addInitScript(standInPushManager, push.origin);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const siteOrigin = `http://127.0.0.1:${sitePort}`;

    await page.goto(`${siteOrigin}/`);
    const widget = page.locator('[data-parley-widget]');
    await widget.getByRole('button', { name: 'Open chat' }).click({ timeout: 30_000 });
    await widget.getByRole('button', { name: 'Get notifications' }).click();
    await expect(widget.locator('[data-parley-push]')).toHaveText('Notifications on', { timeout: 30_000 });

    // The real service worker of the site is registered, from the one-line file importing Parley's worker.
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.scriptURL)).toBe(`${siteOrigin}/parley-sw.js`);
    const state = await page.evaluate(() => (window as unknown as { __pushStandIn: StandInState }).__pushStandIn);
    // The widget subscribed with the account's VAPID key, visible-only, and posted the page-made keys.
    expect(state.applicationServerKey).toBe((await vapidKeysFor({ accountId })).publicKey);
    expect(state.userVisibleOnly).toBe(true);
    const rows = await getDb().select().from(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.accountId, accountId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: `${push.origin}/push/${state.keys!.id}`, p256dh: state.keys!.p256dh, auth: state.keys!.auth, pageUrl: `${siteOrigin}/`, browser: 'Chrome', seenAt: null });
    expect(rows[0].timezone).toBeTruthy();

    // A later visit of this subscribed browser refreshes the segment facts (ADR 115).
    await page.goto(`${siteOrigin}/pricing`);
    await expect
      .poll(async () => (await getDb().select().from(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.id, rows[0].id)))[0].pageUrl, { timeout: 30_000 })
      .toBe(`${siteOrigin}/pricing`);

    // A push campaign to a segment of pricing visitors, sent by the engine; the stand-in decrypts it with the page's key.
    push.adopt(state.keys!);
    const segment = await createPushSegment({
      accountId,
      actorId: a.owner.id,
      name: 'Pricing visitors',
      actionOperator: 'AND',
      actions: [{ key: 'pageUrl', operator: 'contains', value: '/pricing' }],
      propertyOperator: 'AND',
      properties: [],
    });
    const campaign = await createPushCampaign({ accountId, actorId: a.owner.id, name: 'Spring', pushSegmentId: segment.id, title: 'Spring sale', body: 'Two months free', url: `${siteOrigin}/pricing` });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: campaign.id });
    await expect.poll(() => push.received.length, { timeout: 60_000 }).toBe(1);
    expect(push.refused).toEqual([]);
    expect(push.received[0].subscription).toBe(state.keys!.id);
    expect(push.received[0].vapidKey).toBe(state.applicationServerKey);
    const payload = push.received[0].payload as { title: string; body: string; url: string; delivered: string };
    expect(payload).toMatchObject({ title: 'Spring sale', body: 'Two months free' });

    // The push service's last step, done through DevTools: the decrypted payload goes to the site's real worker.
    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) =>
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => {
        const found = e.registrations.find((r) => r.scopeURL.startsWith(siteOrigin));
        if (found) resolve(found.registrationId);
      }),
    );
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: siteOrigin, registrationId: await registrationId, data: JSON.stringify(payload) });
    await expect
      .poll(async () => (await getCampaign({ accountId, id: campaign.id, kind: 'push' }))?.deliveredCount, { timeout: 30_000 })
      .toBe(1);
    const recipients = await getDb()
      .select()
      .from(schema.campaignRecipients)
      .where(and(eq(schema.campaignRecipients.accountId, accountId), eq(schema.campaignRecipients.campaignId, campaign.id)));
    expect(recipients).toHaveLength(1);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    await push.close();
  }
});
