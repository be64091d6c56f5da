import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { updateContact } from '../../app/models/crm/contacts.server';
import { getOpenConnection } from '../../app/models/integrations/connections.server';
import { drainEvents, lastEventId } from '../helpers/engine';
import { startTestApp } from '../helpers/http';
import { connectThroughOAuth, integrationAccount, startCrmStandIns, type IntegrationAccount } from '../helpers/integrations';

let app: Awaited<ReturnType<typeof startTestApp>>;
let crm: Awaited<ReturnType<typeof startCrmStandIns>>;
let hs: typeof crm.hs;
let pd: typeof crm.pd;

beforeAll(async () => {
  crm = await startCrmStandIns({ hubspot: { appId: '31337', developerApiKey: 'hs-dev-key' } });
  ({ hs, pd } = crm);
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await crm?.close();
});

const setup = () => integrationAccount(app, { subject: 'Address change', contact: { name: 'Carl Client' }, message: 'We moved' });

async function contactOf(s: IntegrationAccount) {
  const [row] = await getDb()
    .select()
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, s.account.id), eq(schema.contacts.id, s.conversation.contactId!)));
  return row;
}

/** A change made in Parley, and the engine's work on it (the sync handler among the others). */
async function changeInParley(s: IntegrationAccount, input: { firstName?: string; lastName?: string; phone?: string; title?: string }) {
  const c = await contactOf(s);
  const after = await lastEventId(s.account.id);
  await updateContact({ accountId: s.account.id, actorId: s.owner.id, id: c.id, input: { firstName: c.firstName, lastName: c.lastName, email: c.email, phone: c.phone, title: c.title, ...input } });
  return drainEvents(s.account.id, { after });
}

const originEvents = async (s: IntegrationAccount, origin: string) =>
  (
    await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'contact_updated')))
  ).filter((e) => e.payload.origin === origin);

describe('HubSpot contact sync', () => {
  it('is opted into with a field mapping, sends Parley changes, takes signed HubSpot changes, and never echoes one back', async () => {
    const s = await setup();
    await connectThroughOAuth(s, 'hubspot');
    const page = await s.get('/settings/integrations/hubspot');
    expect(page.text).toContain('data-testid="crm-sync"');
    expect(page.text).toContain('HubSpot property for first name');

    expect((await s.post('/settings/integrations/hubspot', { intent: 'sync', enabled: 'on', firstName: 'firstname' }, s.agentCookie)).status).toBe(403);
    const twice = await s.post('/settings/integrations/hubspot', { intent: 'sync', enabled: 'on', firstName: 'firstname', lastName: 'firstname' });
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('First name (firstname) is already mapped to First name');
    const none = await s.post('/settings/integrations/hubspot', { intent: 'sync', enabled: 'on' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose at least one field to sync');
    expect((await s.post('/settings/integrations/hubspot', { intent: 'sync', enabled: 'on', firstName: 'hs_secret_field' })).status).toBe(400);

    const saved = await s.post('/settings/integrations/hubspot', { intent: 'sync', enabled: 'on', firstName: 'firstname', lastName: 'lastname', phone: 'mobilephone', title: 'jobtitle' });
    expect(saved.status).toBe(302);
    expect(hs.webhookSettings.targetUrl).toMatch(/\/webhooks\/integrations\/hubspot$/);
    expect(hs.subscriptions.map((x) => x.propertyName).sort()).toEqual(['firstname', 'jobtitle', 'lastname', 'mobilephone']);
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'hubspot' }))!;
    expect(conn.settings.sync).toEqual({ enabled: true, fields: { firstName: 'firstname', lastName: 'lastname', phone: 'mobilephone', title: 'jobtitle' } });

    // Parley → HubSpot: the contact is not in HubSpot yet, so it is created with the mapped fields.
    await changeInParley(s, { phone: '+49 30 1234', title: 'CTO' });
    const hsContact = hs.objects.contacts.find((x) => x.properties.email === s.email)!;
    expect(hsContact.properties).toMatchObject({ firstname: 'Carl', lastname: 'Client', mobilephone: '+49 30 1234', jobtitle: 'CTO' });
    // Then only what changed.
    const patches = hs.patchCount();
    await changeInParley(s, { title: 'CEO' });
    expect(hs.patchCount()).toBe(patches + 1);
    expect(hsContact.properties.jobtitle).toBe('CEO');
    // A change of a field that is not synced sends nothing.
    await changeInParley(s, { title: 'CEO' });
    expect(hs.patchCount()).toBe(patches + 1);

    // HubSpot → Parley, signed; the change is not sent back to HubSpot.
    const delivered = await hs.changeContact(hsContact.id, 'firstname', 'Carlotta', { port: app.port });
    expect(delivered).toMatchObject({ status: 200 });
    expect((await contactOf(s)).firstName).toBe('Carlotta');
    const fromHubspot = await originEvents(s, 'hubspot');
    expect(fromHubspot).toHaveLength(1);
    expect(fromHubspot[0].payload.changed).toEqual(['firstName']);
    await drainEvents(s.account.id, { after: fromHubspot[0].id - 1 });
    expect(hs.patchCount()).toBe(patches + 1);

    // Last change wins: a HubSpot change older than Parley's last one is not applied.
    await changeInParley(s, { title: 'Founder' });
    await hs.changeContact(hsContact.id, 'jobtitle', 'Intern', { port: app.port, occurredAt: Date.now() - 60 * 60_000 });
    expect((await contactOf(s)).title).toBe('Founder');
    // ... and a Parley change older than HubSpot's last one is not sent.
    hsContact.properties.lastmodifieddate = new Date(Date.now() + 60 * 60_000).toISOString();
    const before = hs.patchCount();
    await changeInParley(s, { title: 'Chair' });
    expect(hs.patchCount()).toBe(before);

    // Forged or stale deliveries are refused.
    expect(await hs.changeContact(hsContact.id, 'firstname', 'Mallory', { port: app.port, secret: 'not-the-app-secret' })).toMatchObject({ status: 401 });
    expect(await hs.changeContact(hsContact.id, 'firstname', 'Mallory', { port: app.port, timestamp: Date.now() - 10 * 60_000 })).toMatchObject({ status: 401 });
    expect((await contactOf(s)).firstName).toBe('Carlotta');

    // Turned off: nothing more is sent.
    expect((await s.post('/settings/integrations/hubspot', { intent: 'sync', firstName: 'firstname' })).status).toBe(302);
    hsContact.properties.lastmodifieddate = new Date(0).toISOString();
    const off = hs.patchCount();
    await changeInParley(s, { title: 'Retired' });
    expect(hs.patchCount()).toBe(off);
  });
});

describe('Pipedrive contact sync', () => {
  it('registers a webhook with generated credentials, sends Parley changes, takes authenticated Pipedrive changes once', async () => {
    const s = await setup();
    await connectThroughOAuth(s, 'pipedrive');
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'pipedrive' }))!;
    expect((await s.post('/settings/integrations/pipedrive', { intent: 'sync', enabled: 'on', firstName: 'jobtitle' })).status).toBe(400);
    expect((await s.post('/settings/integrations/pipedrive', { intent: 'sync', enabled: 'on', firstName: 'first_name', lastName: 'last_name', phone: 'phone' })).status).toBe(302);
    expect(pd.webhooks).toHaveLength(1);
    const hook = pd.webhooks[0];
    expect(hook).toMatchObject({ event_action: 'change', event_object: 'person', version: '2.0', http_auth_user: 'parley' });
    expect(hook.subscription_url).toMatch(new RegExp(`/webhooks/integrations/pipedrive/${conn.id}$`));
    expect(hook.http_auth_password.length).toBeGreaterThanOrEqual(32);
    expect((await s.get('/settings/integrations/pipedrive')).text).not.toContain(hook.http_auth_password);

    await changeInParley(s, { phone: '+44 20 7946 0000' });
    const person = pd.persons.find((p) => p.email === s.email)!;
    expect(person).toMatchObject({ first_name: 'Carl', last_name: 'Client', phones: [{ value: '+44 20 7946 0000', primary: true, label: 'work' }] });
    await changeInParley(s, { lastName: 'Clientson' });
    expect(pd.patchCount()).toBe(1);
    expect(person.last_name).toBe('Clientson');

    const [delivery] = await pd.changePerson(person.id, { first_name: 'Carlo' }, { port: app.port });
    expect(delivery).toEqual({ status: 200, text: 'applied' });
    expect((await contactOf(s)).firstName).toBe('Carlo');
    const [fromPipedrive] = await originEvents(s, 'pipedrive');
    await drainEvents(s.account.id, { after: fromPipedrive.id - 1 });
    expect(pd.patchCount()).toBe(1);

    // Wrong credentials, or a connection without the hook, are refused.
    const [forged] = await pd.changePerson(person.id, { first_name: 'Mallory' }, { port: app.port, password: 'guessed' });
    expect(forged.status).toBe(401);
    expect((await contactOf(s)).firstName).toBe('Carlo');

    // Off: the webhook is deleted at Pipedrive.
    expect((await s.post('/settings/integrations/pipedrive', { intent: 'sync', firstName: 'first_name' })).status).toBe(302);
    expect(pd.webhooks).toHaveLength(0);
    expect((await getOpenConnection({ accountId: s.account.id, provider: 'pipedrive' }))!.settings.hooks).toEqual({});

    // On again, then disconnected: the webhook goes with the connection.
    await s.post('/settings/integrations/pipedrive', { intent: 'sync', enabled: 'on', firstName: 'first_name' });
    expect(pd.webhooks).toHaveLength(1);
    expect((await s.post('/settings/integrations/pipedrive', { intent: 'disconnect' })).status).toBe(302);
    expect(pd.webhooks).toHaveLength(0);
  });
});
