import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { getOpenConnection } from '../../app/models/integrations/connections.server';
import { startTestApp } from '../helpers/http';
import { integrationAccount, startCrmStandIns } from '../helpers/integrations';

let app: Awaited<ReturnType<typeof startTestApp>>;
let crm: Awaited<ReturnType<typeof startCrmStandIns>>;
let hs: typeof crm.hs;
let pd: typeof crm.pd;

beforeAll(async () => {
  crm = await startCrmStandIns({ hubspot: { expiresIn: 60 } });
  ({ hs, pd } = crm);
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await crm?.close();
});

const setup = (email?: string) =>
  integrationAccount(app, { subject: 'Upgrade to 50 seats', contact: { name: 'Carl Client', email: email ?? ((domain) => `carl@acme-${domain}.test`) }, message: 'We want to upgrade' });

async function connect(s: Awaited<ReturnType<typeof setup>>) {
  const start = await s.post('/settings/integrations/hubspot', { intent: 'connect' });
  expect(start.status).toBe(302);
  expect(start.headers.location).toContain(`${hs.base}/oauth/authorize?`);
  expect(start.headers.location).toContain('crm.objects.deals.write');
  const consent = await fetch(start.headers.location!, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location')!);
  const done = await s.get(`${back.pathname}${back.search}`);
  expect(done.status).toBe(302);
  expect(done.headers.location).toBe('/settings/integrations/hubspot');
}

describe('HubSpot', () => {
  it('connects through OAuth, finds or creates the contact and company, creates a deal, logs the conversation', async () => {
    const s = await setup();
    expect((await s.post('/settings/integrations/hubspot', { intent: 'connect' }, s.agentCookie)).status).toBe(403);
    await connect(s);
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'hubspot' }))!;
    expect(conn.externalAccount).toBe(String(hs.hubId));
    const [row] = await getDb()
      .select()
      .from(schema.integrationConnections)
      .where(and(eq(schema.integrationConnections.accountId, s.account.id), eq(schema.integrationConnections.provider, 'hubspot')));
    expect(row.accessTokenSealed).not.toContain(conn.accessToken);

    // The token expires within two minutes: it is refreshed before the first call.
    const before = hs.refreshedCount();
    const empty = await s.get(`/inbox/${s.conversation.id}`);
    expect(hs.refreshedCount()).toBeGreaterThan(before);
    expect(empty.text).toContain('data-testid="hubspot-panel"');
    expect(empty.text).toContain('No HubSpot contact with this email.');
    expect(empty.text).not.toContain(conn.accessToken);
    // Agents without perform_data_specific_action cannot act.
    expect((await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'hubspot-contact', leadStatus: 'NEW' }, s.agentCookie)).status).toBe(403);

    const made = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'hubspot-contact', leadStatus: 'IN_PROGRESS' });
    expect(made.status).toBe(302);
    const contact = hs.objects.contacts.find((c) => c.properties.email === s.email)!;
    expect(contact.properties).toMatchObject({ firstname: 'Carl', lastname: 'Client', hs_lead_status: 'IN_PROGRESS' });
    const company = hs.objects.companies.find((c) => c.properties.domain === s.email.split('@')[1])!;
    expect(contact.properties.associatedcompanyid).toBe(company.id);
    // Again: found, not created twice.
    await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'hubspot-contact', leadStatus: 'NEW' });
    expect(hs.objects.contacts.filter((c) => c.properties.email === s.email)).toHaveLength(1);
    // The panel names the record's company with its company ID (section 3's field labels).
    expect((await s.get(`/inbox/${s.conversation.id}`)).text).toContain(`(company ID ${company.id})`);

    const form = await s.get(`/inbox/${s.conversation.id}/integrations?hubspot=deal`);
    expect(form.status).toBe(200);
    for (const label of ['Deal name', 'Pipeline', 'Deal stage', 'Close date', 'Owner']) expect(form.text).toContain(`>${label}</label>`);
    expect(form.text).toContain('Qualified To Buy');
    const bad = await s.post(`/inbox/${s.conversation.id}/integrations?hubspot=deal`, {
      intent: 'hubspot-deal',
      dealName: '50 seats',
      pipeline: 'default',
      dealStage: '7771-open',
      closeDate: '2026-12-31',
      ownerId: '501',
      amount: '12000',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose a deal stage of the Sales Pipeline pipeline');
    expect(bad.text).toContain('value="50 seats"');
    const ok = await s.post(`/inbox/${s.conversation.id}/integrations?hubspot=deal`, {
      intent: 'hubspot-deal',
      dealName: '50 seats',
      pipeline: 'default',
      dealStage: 'qualifiedtobuy',
      closeDate: '2026-12-31',
      ownerId: '501',
      amount: '12000',
    });
    expect(ok.status).toBe(302);
    const deal = hs.objects.deals.find((d) => d.properties.dealname === '50 seats')!;
    expect(deal.properties).toMatchObject({
      pipeline: 'default',
      dealstage: 'qualifiedtobuy',
      hubspot_owner_id: '501',
      amount: '12000',
      closedate: '2026-12-31T12:00:00.000Z',
    });
    expect(hs.assoc.some((a) => a.from === 'deals' && a.fromId === deal.id && a.toId === contact.id && a.typeId === 3)).toBe(true);

    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.text).toContain('data-testid="hubspot-deal"');
    expect(page.text).toContain('Qualified To Buy');
    expect(page.text).toContain('Sales Pipeline · closes 2026-12-31 · Olga Owner');
    expect(page.text).toContain('Lead status: In progress');
    expect((await s.get(`/customers/${s.conversation.contactId}`)).text).toContain('50 seats');

    const logged = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'hubspot-log' });
    expect(logged.status).toBe(302);
    const note = hs.objects.notes.at(-1)!;
    expect(note.properties.hs_note_body).toContain('Customer: We want to upgrade');
    expect(note.properties.hs_note_body).toContain(`/inbox/${s.conversation.id}`);
    expect(hs.assoc.some((a) => a.from === 'notes' && a.fromId === note.id && a.toId === contact.id && a.typeId === 202)).toBe(true);
    const system = await getDb()
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'system')));
    expect(system.map((m) => m.text).join('\n')).toMatch(
      /Created HubSpot contact[\s\S]*Created HubSpot deal 50 seats \(Sales Pipeline · Qualified To Buy\)[\s\S]*Logged this conversation to HubSpot/,
    );

    // Disconnect deletes the refresh token at HubSpot.
    const revokedBefore = hs.revokedCount();
    expect((await s.post('/settings/integrations/hubspot', { intent: 'disconnect' })).status).toBe(302);
    expect(hs.revokedCount()).toBe(revokedBefore + 1);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'hubspot' })).toBeNull();
  });

  it('does not make a company for a free-mail domain', async () => {
    const s = await setup(`dora${Date.now()}@gmail.com`);
    await connect(s);
    await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'hubspot-contact', leadStatus: 'NEW' });
    const c = hs.objects.contacts.find((x) => x.properties.email === s.email)!;
    expect(c.properties.associatedcompanyid).toBeUndefined();
    expect(hs.objects.companies.some((x) => x.properties.domain === 'gmail.com')).toBe(false);
  });
});

describe('Pipedrive', () => {
  it('connects through OAuth, creates the person and organization, a deal with pipeline, stage and user IDs, and logs an activity', async () => {
    const s = await setup();
    const start = await s.post('/settings/integrations/pipedrive', { intent: 'connect' });
    expect(start.status).toBe(302);
    const consent = await fetch(start.headers.location!, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect((await s.get(`${back.pathname}${back.search}`)).headers.location).toBe('/settings/integrations/pipedrive');
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'pipedrive' }))!;
    expect(conn.externalAccount).toBe('parleytest');
    expect((await s.get(`/inbox/${s.conversation.id}`)).text).toContain('No Pipedrive person with this email.');
    expect((await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'pipedrive-person' }, s.agentCookie)).status).toBe(403);
    expect((await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'pipedrive-person' })).status).toBe(302);
    const person = pd.persons.find((p) => p.email === s.email)!;
    expect(person.name).toBe('Carl Client');
    const form = await s.get(`/inbox/${s.conversation.id}/integrations?pipedrive=deal`);
    for (const label of ['Deal title', 'Pipeline ID', 'Stage ID', 'User ID', 'Visible to']) expect(form.text).toContain(`>${label}</label>`);
    expect((await s.post(`/inbox/${s.conversation.id}/integrations?pipedrive=deal`, { intent: 'pipedrive-deal', title: 'Seats', pipelineId: '1', stageId: '99' })).status).toBe(400);
    const ok = await s.post(`/inbox/${s.conversation.id}/integrations?pipedrive=deal`, { intent: 'pipedrive-deal', title: 'Seats', pipelineId: '1', stageId: '2', ownerId: '11', value: '900', closeDate: '2026-12-31', visibleTo: '3' });
    expect(ok.status).toBe(302);
    expect(pd.deals[0]).toMatchObject({ title: 'Seats', person_id: person.id, pipeline_id: 1, stage_id: 2, user_id: 11, expected_close_date: '2026-12-31', visible_to: '3' });
    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.text).toContain('data-testid="pipedrive-deal"');
    expect(page.text).toContain('Contact Made');
    expect((await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'pipedrive-log' })).status).toBe(302);
    expect(pd.activities[0]).toMatchObject({ person_id: person.id, done: 1 });
    expect(String(pd.activities[0].note)).toContain('Customer: We want to upgrade');
    expect((await s.post('/settings/integrations/pipedrive', { intent: 'disconnect' })).status).toBe(302);
    expect(pd.revokedCount()).toBe(1);
  });
});
