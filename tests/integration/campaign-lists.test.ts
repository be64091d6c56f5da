import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { loadCampaignList } from '../../app/models/campaigns/campaigns.server';
import { createTestAccount, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function accountWithCampaigns() {
  const a = await createTestAccount();
  const accountId = a.account.id;
  await getDb()
    .insert(schema.campaigns)
    .values([
      { accountId, kind: 'message', name: 'Welcome chat' },
      { accountId, kind: 'email', name: 'Spring newsletter' },
      { accountId, kind: 'email', name: 'Autumn newsletter', status: 'sent' },
      { accountId, kind: 'sms', name: 'Flash sale text' },
      { accountId, kind: 'push', name: 'Back in stock' },
    ]);
  const cookie = await sessionCookie({ domain: a.domain, accountId, userId: a.owner.id });
  return { ...a, accountId, cookie };
}

describe('campaign lists per kind (section 2: campaigns/message, campaigns/email, campaigns/sms)', () => {
  it('one loader: a fixed kind wins over the address, the other filters still apply', async () => {
    const a = await accountWithCampaigns();
    const email = await loadCampaignList({ accountId: a.accountId, searchParams: new URLSearchParams('kind=sms'), kind: 'email' });
    expect(email.fixedKind).toBe('email');
    expect(email.list.rows.map((r) => r.name).sort()).toEqual(['Autumn newsletter', 'Spring newsletter']);
    const sentEmail = await loadCampaignList({ accountId: a.accountId, searchParams: new URLSearchParams('status=sent'), kind: 'email' });
    expect(sentEmail.list.rows.map((r) => r.name)).toEqual(['Autumn newsletter']);
    const all = await loadCampaignList({ accountId: a.accountId, searchParams: new URLSearchParams('status=bogus&from=yesterday') });
    expect(all.fixedKind).toBeNull();
    expect(all.filters).toEqual({ kind: undefined, status: undefined, from: undefined, to: undefined });
    expect(all.list.total).toBe(5);
    // Another account's campaigns never show.
    const other = await createTestAccount();
    expect((await loadCampaignList({ accountId: other.account.id, searchParams: new URLSearchParams(), kind: 'email' })).list.total).toBe(0);
  });

  it('serves each kind list with the tabs, deletes back to the same list, and 404s for kinds without a list', async () => {
    const a = await accountWithCampaigns();
    const get = (p: string) => app.request(p, { domain: a.domain, cookie: a.cookie });
    const sms = await get('/campaigns/sms');
    expect(sms.status).toBe(200);
    expect(sms.text).toContain('SMS campaigns');
    expect(sms.text).toContain('Flash sale text');
    expect(sms.text).not.toContain('Spring newsletter');
    expect(sms.text).toContain('href="/campaigns/message"');
    const message = await get('/campaigns/message');
    expect(message.status).toBe(200);
    expect(message.text).toContain('Welcome chat');
    expect(message.text).not.toContain('Flash sale text');
    const email = await get('/campaigns/email?q=spring');
    expect(email.text).toContain('Spring newsletter');
    expect(email.text).not.toContain('Autumn newsletter');
    expect((await get('/campaigns/push')).status).toBe(404);
    expect((await get('/campaigns/nope')).status).toBe(404);

    const [row] = await getDb().select().from(schema.campaigns).where(and(eq(schema.campaigns.accountId, a.accountId), eq(schema.campaigns.name, 'Flash sale text')));
    const del = await app.request('/campaigns/sms', { domain: a.domain, cookie: a.cookie, form: { intent: 'delete', id: String(row.id) } });
    expect(del.status).toBe(302);
    expect(del.headers.location).toBe('/campaigns/sms');
  });

  it('a kind whose plan feature is off: a page load falls back to all campaigns with the denial, a post is refused', async () => {
    const a = await accountWithCampaigns();
    await givePlan(a.accountId, { campaigns: { enabled: true, emailCampaigns: true, chatMessaging: false, smsCampaigns: false } } as never);
    // A page load falls back to the list with the denial (section 2); an API-style call keeps its 403.
    const res = await app.request('/campaigns/sms', { domain: a.domain, cookie: a.cookie, accept: 'text/html' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/campaigns');
    const toastCookie = String(res.headers['set-cookie'] ?? '').split(';')[0];
    const list = await app.request('/campaigns', { domain: a.domain, cookie: `${a.cookie}; ${toastCookie}`, accept: 'text/html' });
    expect(list.text).toContain('Your current plan does not support this feature. Please contact your account administrator.');
    expect((await app.request('/campaigns/sms', { domain: a.domain, cookie: a.cookie })).status).toBe(403);
    expect((await app.request('/campaigns/sms', { domain: a.domain, cookie: a.cookie, form: { intent: 'delete', id: '1' } })).status).toBe(403);
    expect((await app.request('/campaigns/email', { domain: a.domain, cookie: a.cookie })).status).toBe(200);
  });
});
