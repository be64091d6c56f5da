import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { openSecret, sealSecret } from '../../app/utils/secret-box.server';
import { getOpenConnection, signIntegrationState, verifyIntegrationState } from '../../app/models/integrations/connections.server';
import { githubPanelFor } from '../../app/models/integrations/github/github.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { givePlan } from '../factories';
import { startTestApp } from '../helpers/http';
import { captureLogs, integrationAccount } from '../helpers/integrations';
import { startGithubStandIn } from '../helpers/github-standin';
import { startShopifyStandIn } from '../helpers/shopify-standin';

let app: Awaited<ReturnType<typeof startTestApp>>;
let shopify: Awaited<ReturnType<typeof startShopifyStandIn>>;
let github: Awaited<ReturnType<typeof startGithubStandIn>>;
const ENV = ['SHOPIFY_CLIENT_ID', 'SHOPIFY_CLIENT_SECRET', 'SHOPIFY_API_BASE', 'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET', 'GITHUB_OAUTH_BASE', 'GITHUB_API_BASE', 'PARLEY_SECRET_KEY'];
let logs: ReturnType<typeof captureLogs>;

beforeAll(async () => {
  shopify = await startShopifyStandIn({ clientId: 'shop-client', clientSecret: 'shpss_test_secret' });
  github = await startGithubStandIn({ clientId: 'Iv1.testclient', clientSecret: 'gh-test-secret', expiringTokens: true });
  Object.assign(process.env, {
    SHOPIFY_CLIENT_ID: 'shop-client',
    SHOPIFY_CLIENT_SECRET: 'shpss_test_secret',
    SHOPIFY_API_BASE: shopify.base,
    GITHUB_CLIENT_ID: 'Iv1.testclient',
    GITHUB_CLIENT_SECRET: 'gh-test-secret',
    GITHUB_OAUTH_BASE: github.base,
    GITHUB_API_BASE: github.base,
    PARLEY_SECRET_KEY: 'a'.repeat(64),
  });
  resetSingleton('config');
  logs = captureLogs();
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await shopify?.close();
  await github?.close();
  for (const k of ENV) delete process.env[k];
  logs?.restore();
  resetSingleton('config');
});

const setup = () => integrationAccount(app, { subject: 'Where is my order?', contact: { name: 'Dana Doe' }, message: 'It has not arrived' });

/** Follows the provider's consent redirect back into Parley's callback, as the browser would. */
async function consent(location: string, s: Awaited<ReturnType<typeof setup>>) {
  const res = await fetch(location, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  return s.get(`${back.pathname}${back.search}`);
}

async function connectShopify(s: Awaited<ReturnType<typeof setup>>) {
  const start = await s.post('/settings/integrations/shopify', { intent: 'connect', shop: 'parley-test' });
  expect(start.status).toBe(302);
  expect(start.headers.location).toContain(`${shopify.base}/admin/oauth/authorize?`);
  const done = await consent(start.headers.location!, s);
  expect(done.status).toBe(302);
  expect(done.headers.location).toBe('/settings/integrations/shopify');
}

async function connectGithub(s: Awaited<ReturnType<typeof setup>>) {
  const start = await s.post('/settings/integrations/github', { intent: 'connect' });
  expect(start.status).toBe(302);
  const done = await consent(start.headers.location!, s);
  expect(done.headers.location).toBe('/settings/integrations/github');
}

describe('integration base', () => {
  it('seals tokens with AES-256-GCM bound to the account and purpose', () => {
    const sealed = sealSecret('shpat_secret', { accountId: 1, purpose: 'integration:shopify:access' });
    expect(sealed).not.toContain('shpat_secret');
    expect(openSecret(sealed, { accountId: 1, purpose: 'integration:shopify:access' })).toBe('shpat_secret');
    expect(() => openSecret(sealed, { accountId: 2, purpose: 'integration:shopify:access' })).toThrow();
    expect(() => openSecret(sealed, { accountId: 1, purpose: 'integration:shopify:refresh' })).toThrow();
  });

  it('binds the OAuth state to the account, the user and the provider', () => {
    const state = signIntegrationState({ accountId: 1, userId: 2, provider: 'github' });
    expect(verifyIntegrationState(state, { accountId: 1, userId: 2, provider: 'github' })).not.toBeNull();
    expect(verifyIntegrationState(state, { accountId: 3, userId: 2, provider: 'github' })).toBeNull();
    expect(verifyIntegrationState(state, { accountId: 1, userId: 4, provider: 'github' })).toBeNull();
    expect(verifyIntegrationState(state, { accountId: 1, userId: 2, provider: 'shopify' })).toBeNull();
    expect(verifyIntegrationState(`${state.slice(0, -2)}xx`, { accountId: 1, userId: 2, provider: 'github' })).toBeNull();
  });

  it('needs manage_integrations and the plan area for the settings, view_incoming_data for the panels', async () => {
    const s = await setup();
    expect((await s.get('/settings/integrations')).status).toBe(200);
    expect((await s.get('/settings/integrations', s.agentCookie)).status).toBe(403);
    expect((await s.post('/settings/integrations/shopify', { intent: 'connect', shop: 'x' }, s.agentCookie)).status).toBe(403);
    await connectShopify(s);
    // The agent's default role has no integration permission: no panel, no actions.
    expect((await s.get(`/inbox/${s.conversation.id}`, s.agentCookie)).text).not.toContain('data-testid="shopify-panel"');
    expect((await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'order-action', orderId: '1', action: 'cancel' }, s.agentCookie)).status).toBe(403);
    await givePlan(s.account.id, { integrations: { enabled: false }, support: { enabled: true } });
    expect((await s.get('/settings/integrations')).status).toBe(403);
    expect((await s.get(`/inbox/${s.conversation.id}`)).text).not.toContain('data-testid="shopify-panel"');
  });

  it('refuses a callback whose state was started by another account', async () => {
    const a = await setup();
    const b = await setup();
    const start = await a.post('/settings/integrations/github', { intent: 'connect' });
    const res = await fetch(start.headers.location!, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    const other = await b.get(`${back.pathname}${back.search}`);
    expect(other.status).toBe(400);
    expect(await getOpenConnection({ accountId: b.account.id, provider: 'github' })).toBeNull();
  });
});

describe('Shopify', () => {
  it('connects through OAuth, shows the contact’s orders, cancels and refunds with a confirmation', async () => {
    const s = await setup();
    const customerId = shopify.addCustomer({ email: s.email, firstName: 'Dana', lastName: 'Doe' });
    const first = shopify.addOrder({ customerId, name: '#1001', total: '49.90' });
    const second = shopify.addOrder({ customerId, name: '#1002', total: '15.00', fulfillmentStatus: 'fulfilled' });
    await connectShopify(s);
    const [row] = await getDb().select().from(schema.integrationConnections).where(and(eq(schema.integrationConnections.accountId, s.account.id), eq(schema.integrationConnections.provider, 'shopify')));
    expect(row.externalAccount).toBe('parley-test.myshopify.com');
    const token = (await getOpenConnection({ accountId: s.account.id, provider: 'shopify' }))!.accessToken;
    expect(token).toMatch(/^shpat_/);
    expect(row.accessTokenSealed).not.toContain(token);
    expect(shopify.webhooks.some((w) => w.topic === 'app/uninstalled' && w.address.endsWith('/webhooks/integrations/shopify'))).toBe(true);

    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="shopify-panel"');
    expect(page.text).toContain('#1001');
    expect(page.text).toContain('49.90 EUR');
    expect(page.text).toContain('2 orders · 64.90 EUR spent');
    expect(page.text).not.toContain(token);
    // Tokens never reach a page: not the settings pages, not the conversation.
    for (const path of ['/settings/integrations', '/settings/integrations/shopify']) {
      const p = await s.get(path);
      expect(p.status).toBe(200);
      expect(p.text).toContain('parley-test.myshopify.com');
      expect(p.text).not.toContain(token);
      expect(p.text).not.toContain(row.accessTokenSealed);
    }
    // The contact page shows the same record.
    const contactPage = await s.get(`/customers/${s.conversation.contactId}`);
    expect(contactPage.text).toContain('#1002');

    const confirm = await s.get(`/inbox/${s.conversation.id}/integrations?order=${first}&do=cancel`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Cancel order #1001');
    expect(shopify.orders.find((o) => o.id === first)!.cancelled_at).toBeNull();
    const done = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'order-action', orderId: String(first), action: 'cancel' });
    expect(done.status).toBe(302);
    expect(shopify.orders.find((o) => o.id === first)!.cancelled_at).not.toBeNull();
    const refund = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'order-action', orderId: String(second), action: 'refund' });
    expect(refund.status).toBe(302);
    expect(shopify.orders.find((o) => o.id === second)!.financial_status).toBe('refunded');
    const notes = await getDb().select().from(schema.messages).where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'system')));
    expect(notes.map((n) => n.text).join('\n')).toMatch(/Cancelled Shopify order #1001 \(49\.90 EUR\)[\s\S]*Refunded Shopify order #1002/);
    // An order of another customer is not reachable from this conversation.
    const stranger = shopify.addOrder({ customerId: shopify.addCustomer({ email: 'other@example.test', firstName: 'O', lastName: 'T' }), name: '#2001', total: '5.00' });
    expect((await s.get(`/inbox/${s.conversation.id}/integrations?order=${stranger}&do=cancel`)).status).toBe(404);
    expect((await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'order-action', orderId: String(stranger), action: 'cancel' })).status).toBe(302);
    expect(shopify.orders.find((o) => o.id === stranger)!.cancelled_at).toBeNull();
  });

  it('refuses forged webhooks and ends the connection on a signed app/uninstalled', async () => {
    const s = await setup();
    await connectShopify(s);
    const address = shopify.webhooks.find((w) => w.topic === 'app/uninstalled')!.address.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${app.port}`);
    expect(await shopify.deliver(address, 'app/uninstalled', { id: 1 }, 'not-the-secret')).toBe(401);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'shopify' })).not.toBeNull();
    expect(await shopify.deliver(address, 'app/uninstalled', { id: 1 })).toBe(200);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'shopify' })).toBeNull();
  });

  it('revokes the token on disconnect', async () => {
    const s = await setup();
    await connectShopify(s);
    const token = (await getOpenConnection({ accountId: s.account.id, provider: 'shopify' }))!.accessToken;
    const before = shopify.revokedCount();
    const res = await s.post('/settings/integrations/shopify', { intent: 'disconnect' });
    expect(res.status).toBe(302);
    expect(shopify.revokedCount()).toBe(before + 1);
    expect(shopify.tokens.has(token)).toBe(false);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'shopify' })).toBeNull();
  });

  it('answers a bad shop with a field error and keeps what was typed', async () => {
    const s = await setup();
    const res = await s.post('/settings/integrations/shopify', { intent: 'connect', shop: 'not a shop!' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter your shop as my-store or my-store.myshopify.com');
    expect(res.text).toContain('value="not a shop!"');
  });
});

describe('GitHub', () => {
  it('creates an issue from a conversation; the signed close notes and reopens it; a forged one is refused', async () => {
    const s = await setup();
    await connectGithub(s);
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'github' }))!;
    expect(conn.externalAccount).toBe('octo-agent');
    const form = await s.get(`/inbox/${s.conversation.id}/integrations?github=create`);
    expect(form.text).toContain('value="Where is my order?"');
    const bad = await s.post(`/inbox/${s.conversation.id}/integrations?github=create`, { intent: 'github-create', repo: 'nope', title: 'Lost parcel' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Repository must be owner/name');
    expect(bad.text).toContain('value="Lost parcel"');
    const res = await s.post(`/inbox/${s.conversation.id}/integrations?github=create`, { intent: 'github-create', repo: 'acme/shop', title: 'Lost parcel', body: 'Customer says it never came', assignee: 'octo-dev', reopenOnClose: 'on' });
    expect(res.status).toBe(302);
    const issue = github.issues.get('acme/shop')![0];
    expect(issue.body).toContain(`/inbox/${s.conversation.id}`);
    expect(issue.assignees).toEqual(['octo-dev']);
    expect(github.hooks.filter((h) => h.repo === 'acme/shop')).toHaveLength(1);
    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.text).toContain('acme/shop#1');

    await s.post(`/inbox/${s.conversation.id}`, { intent: 'status', status: 'resolved' });
    const hook = github.hooks.find((h) => h.repo === 'acme/shop')!;
    hook.url = hook.url.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${app.port}`);
    expect(await github.closeIssue('acme/shop', 1, 'maintainer', 'forged-secret')).toEqual([401]);
    const stillOpen = await githubPanelFor({ accountId: s.account.id, conversationId: s.conversation.id });
    expect(stillOpen.connected && stillOpen.links[0].status).toBe('open');

    issue.state = 'open';
    expect(await github.closeIssue('acme/shop', 1, 'maintainer')).toEqual([200]);
    const notes = await getDb().select().from(schema.messages).where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'note')));
    expect(notes.some((n) => n.text.startsWith('acme/shop#1 was closed by maintainer'))).toBe(true);
    const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, s.conversation.id));
    expect(conv.status).toBe('open');
    // A repeated delivery changes nothing.
    expect(await github.closeIssue('acme/shop', 1, 'maintainer')).toEqual([200]);
    const again = await getDb().select().from(schema.messages).where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'note')));
    expect(again.length).toBe(notes.length);
  });

  it('links an existing issue, refreshes an expiring token before use, and revokes on disconnect', async () => {
    const s = await setup();
    await connectGithub(s);
    await s.post(`/inbox/${s.conversation.id}/integrations?github=create`, { intent: 'github-create', repo: 'acme/other', title: 'First' });
    const other = await setup();
    // Each account's webhook secret is its own; the link form takes an address too.
    github.expireTokens();
    await getDb().update(schema.integrationConnections).set({ tokenExpiresAt: new Date(Date.now() - 1000) }).where(eq(schema.integrationConnections.accountId, s.account.id));
    const refreshedBefore = github.refreshedCount();
    const linked = await s.post(`/inbox/${s.conversation.id}/integrations?github=create`, { intent: 'github-link', ref: 'https://github.com/acme/other/issues/1' });
    expect(linked.status).toBe(400);
    expect(linked.text).toContain('is already linked to this conversation');
    expect(github.refreshedCount()).toBe(refreshedBefore + 1);
    const { conversation } = await openConversation({ accountId: s.account.id, inboxId: s.conversation.inboxId, sourceType: 'email', subject: 'Second', contact: { email: s.email, name: 'Dana' }, message: { kind: 'incoming', text: 'x' } });
    expect((await s.post(`/inbox/${conversation.id}/integrations?github=create`, { intent: 'github-link', ref: 'acme/other#1' })).status).toBe(302);
    expect((await s.get(`/inbox/${conversation.id}`)).text).toContain('acme/other#1');
    // Another account cannot act on this conversation.
    expect((await other.post(`/inbox/${conversation.id}/integrations?github=create`, { intent: 'github-link', ref: 'acme/other#1' })).status).toBe(404);
    const token = (await getOpenConnection({ accountId: s.account.id, provider: 'github' }))!.accessToken;
    expect((await s.post('/settings/integrations/github', { intent: 'disconnect' })).status).toBe(302);
    expect(github.tokens.has(token)).toBe(false);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'github' })).toBeNull();
  });
});

describe('secrets', () => {
  it('never writes a token or secret to the log', async () => {
    const secrets = [...shopify.tokens, ...github.tokens.keys(), 'shpss_test_secret', 'gh-test-secret'];
    const rows = await getDb().select().from(schema.integrationConnections);
    for (const r of rows) secrets.push(r.accessTokenSealed);
    expect(logs.lines.length).toBeGreaterThan(0);
    const log = logs.lines.join('\n');
    for (const s of secrets) expect(log).not.toContain(s);
    expect(log).not.toMatch(/gho_[0-9a-f]{32}|shpat_[0-9a-f]{32}|ghr_[0-9a-f]{32}/);
  });
});
