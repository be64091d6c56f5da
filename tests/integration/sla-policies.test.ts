import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { setAccountPlan } from '../../app/models/accounts/accounts.server';
import {
  SLA_EMAIL_INVALID,
  SLA_EMAIL_REQUIRED,
  SLA_EMAILS_MAX,
  SLA_INBOX_INVALID,
  SLA_NAME_REQUIRED,
  SLA_PRIORITY_REQUIRED,
  SLA_PRIORITY_TWICE,
  SLA_UNIT_REQUIRED,
  SLA_VALUE_NUMBER,
  SLA_VALUE_RANGE,
  defaultSlaTargets,
} from '../../app/models/automation/sla-policies.schemas';
import { createSlaPolicy, findPolicyForInbox, getSlaPolicy, listSlaPolicies, updateSlaPolicy } from '../../app/models/automation/sla-policies.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import { ROLE_LOCKED_MESSAGE } from '../../app/models/roles/permissions';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const PATH = '/settings/sla-policy';

async function setupAccount() {
  const a = await createTestAccount();
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  const inbox = (name: string) => createInbox({ accountId: a.account.id, actorId: a.owner.id, name, channelType: 'email', email: `${name.toLowerCase()}@${a.domain}.test` });
  return {
    ...a,
    support: await inbox('Support'),
    sales: await inbox('Sales'),
    ownerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    viewerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id }),
  };
}
type Account = Awaited<ReturnType<typeof setupAccount>>;

async function eventsOf(accountId: number, type: string) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type))).orderBy(schema.domainEvents.id);
}

function toastOf(res: { headers: Record<string, string | string[] | undefined> }) {
  const cookie = String(res.headers['set-cookie']);
  const value = /__parley_toast=([^.;]+)/.exec(cookie)?.[1] ?? '';
  const flash = JSON.parse(Buffer.from(decodeURIComponent(value), 'base64').toString('utf8')) as Record<string, { text: string }>;
  return Object.values(flash)[0]?.text;
}

/** The form as the page posts it: the five default targets. */
function policyForm(over: Record<string, string | string[]> = {}) {
  const form: Record<string, string | string[]> = { intent: 'save', name: 'Standard', isActive: 'on' };
  defaultSlaTargets().forEach((t, i) => {
    form[`targets[${i}].priority`] = t.priority;
    form[`targets[${i}].response.value`] = String(t.response.value);
    form[`targets[${i}].response.unit`] = t.response.unit;
    form[`targets[${i}].resolve.value`] = String(t.resolve.value);
    form[`targets[${i}].resolve.unit`] = t.resolve.unit;
  });
  form['escalateTo[0]'] = '';
  return { ...form, ...over };
}

const post = (a: Account, path: string, form: Record<string, string | string[]>, cookie = a.ownerCookie) => app.request(path, { domain: a.domain, cookie, form });

const sample = (a: Account, over: Partial<Parameters<typeof createSlaPolicy>[0]> = {}) =>
  createSlaPolicy({ accountId: a.account.id, actorId: a.owner.id, name: 'Sample', inboxIds: [], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: true, ...over });

describe('SLA policy pages', () => {
  it('creates, updates and deletes through the routes, with the toasts and events', async () => {
    const a = await setupAccount();
    const page = await app.request(`${PATH}/new`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.status).toBe(200);
    // Section 9 defaults: five priorities, 4 hours and 2 days each.
    for (const p of ['critical', 'high', 'medium', 'low', 'default']) expect(page.text).toContain(`<option value="${p}" selected="">`);
    expect((page.text.match(/name="targets\[\d\]\.response\.value"[^>]*value="4"/g) ?? []).length).toBe(5);
    expect((page.text.match(/name="targets\[\d\]\.resolve\.value"[^>]*value="2"/g) ?? []).length).toBe(5);

    const created = await post(
      a,
      `${PATH}/new`,
      policyForm({ inboxIds: [String(a.support.id)], 'targets[0].response.value': '30', 'targets[0].response.unit': 'minute', isEscalate: 'on', 'escalateTo[0]': 'Lead@Example.com', 'escalateTo[1]': 'boss@example.com' }),
    );
    expect(created.status).toBe(302);
    expect(created.headers.location).toBe(PATH);
    expect(toastOf(created)).toBe('SLA Policy Created');
    const { rows } = await listSlaPolicies({ accountId: a.account.id });
    expect(rows).toHaveLength(1);
    const policy = rows[0];
    expect(policy).toMatchObject({ name: 'Standard', inboxIds: [a.support.id], isEscalate: true, escalateTo: ['lead@example.com', 'boss@example.com'], isActive: true });
    expect(policy.targets[0]).toEqual({ priority: 'critical', response: { value: 30, unit: 'minute' }, resolve: { value: 2, unit: 'day' } });
    expect(policy.targets).toHaveLength(5);
    expect(await eventsOf(a.account.id, 'sla_policy_created')).toHaveLength(1);

    const list = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain('Standard');
    expect(list.text).toContain('lead@example.com');

    // Escalation off: the addresses typed are ignored and not stored.
    const updated = await post(a, `${PATH}/${policy.id}`, policyForm({ name: 'Gold', 'escalateTo[0]': 'not-an-email', 'targets[4].resolve.unit': 'month' }));
    expect(updated.status).toBe(302);
    expect(toastOf(updated)).toBe('SLA Policy Updated');
    const after = await getSlaPolicy({ accountId: a.account.id, id: policy.id });
    expect(after).toMatchObject({ name: 'Gold', inboxIds: [], isEscalate: false, escalateTo: [] });
    expect(after!.targets[4].resolve).toEqual({ value: 2, unit: 'month' });
    const [updateEvent] = await eventsOf(a.account.id, 'sla_policy_updated');
    expect(updateEvent.payload).toMatchObject({ changed: expect.arrayContaining(['name', 'inboxIds', 'targets', 'isEscalate', 'escalateTo']) });

    const deleted = await post(a, `${PATH}/${policy.id}`, { intent: 'delete' });
    expect(deleted.status).toBe(302);
    expect(toastOf(deleted)).toBe('SLA Policy Deleted');
    expect(await getSlaPolicy({ accountId: a.account.id, id: policy.id })).toBeUndefined();
    expect(await eventsOf(a.account.id, 'sla_policy_deleted')).toHaveLength(1);

    expect((await post(a, `${PATH}/new`, { intent: 'frobnicate' })).status).toBe(400);
    expect((await app.request(`${PATH}/abc`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
    expect((await app.request(`${PATH}/${policy.id}`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
  });

  it('answers bad input with 400, each message, the typed values, and writes nothing', async () => {
    const a = await setupAccount();
    const cases: [Record<string, string | string[]>, string][] = [
      [{ name: '  ' }, SLA_NAME_REQUIRED],
      [{ 'targets[1].priority': '' }, SLA_PRIORITY_REQUIRED],
      [{ 'targets[1].priority': 'critical' }, SLA_PRIORITY_TWICE],
      [{ 'targets[2].response.value': 'soon' }, SLA_VALUE_NUMBER],
      [{ 'targets[2].resolve.value': '' }, SLA_VALUE_NUMBER],
      [{ 'targets[2].resolve.value': '1.5' }, SLA_VALUE_RANGE],
      [{ 'targets[2].resolve.value': '0' }, SLA_VALUE_RANGE],
      [{ 'targets[3].response.unit': '' }, SLA_UNIT_REQUIRED],
      [{ 'targets[3].resolve.unit': 'week' }, SLA_UNIT_REQUIRED],
      [{ isEscalate: 'on' }, SLA_EMAIL_REQUIRED],
      [{ isEscalate: 'on', 'escalateTo[0]': 'nobody-at-example' }, SLA_EMAIL_INVALID],
      [{ isEscalate: 'on', 'escalateTo[0]': 'a@example.com', 'escalateTo[1]': 'b@example.com', 'escalateTo[2]': 'c@example.com', 'escalateTo[3]': 'd@example.com' }, SLA_EMAILS_MAX],
      [{ inboxIds: ['999999'] }, SLA_INBOX_INVALID],
    ];
    for (const [over, message] of cases) {
      const res = await post(a, `${PATH}/new`, policyForm({ name: 'Typed name', ...over }));
      expect(res.status, message).toBe(400);
      expect(res.text, message).toContain(message);
    }
    // One submission shows every message at once, whatever else failed.
    const all = await post(a, `${PATH}/new`, policyForm({ name: '', 'targets[1].response.value': 'x', 'targets[2].resolve.unit': '', 'targets[3].priority': 'critical', isEscalate: 'on', 'escalateTo[0]': 'bad' }));
    expect(all.status).toBe(400);
    for (const message of [SLA_NAME_REQUIRED, SLA_VALUE_NUMBER, SLA_UNIT_REQUIRED, SLA_PRIORITY_TWICE, SLA_EMAIL_INVALID]) expect(all.text, message).toContain(message);
    const typed = await post(a, `${PATH}/new`, policyForm({ name: 'Typed name', 'targets[2].response.value': 'soon' }));
    expect(typed.text).toContain('value="Typed name"');
    expect(typed.text).toContain('value="soon"');
    // No target at all.
    const none = await post(a, `${PATH}/new`, { intent: 'save', name: 'Empty' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Add at least one target');
    expect((await listSlaPolicies({ accountId: a.account.id })).total).toBe(0);

    // An inbox already listed by another policy, and another account's inbox.
    await sample(a, { name: 'Support SLA', inboxIds: [a.support.id] });
    const taken = await post(a, `${PATH}/new`, policyForm({ inboxIds: [String(a.support.id)] }));
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('The inbox Support already has the SLA policy Support SLA');
    const other = await setupAccount();
    const foreign = await post(a, `${PATH}/new`, policyForm({ inboxIds: [String(other.sales.id)] }));
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain(SLA_INBOX_INVALID);
    expect((await listSlaPolicies({ accountId: a.account.id })).total).toBe(1);
  });

  it('"Add" and "Remove" buttons re-render the draft without saving', async () => {
    const a = await setupAccount();
    const added = await post(a, `${PATH}/new`, { ...policyForm({ name: 'Draft', isEscalate: 'on', 'escalateTo[0]': 'x@example.com' }), intent: '', __intent__: JSON.stringify({ type: 'insert', payload: { name: 'escalateTo', defaultValue: '' } }) });
    expect(added.status).toBe(200);
    expect(added.text).toContain('name="escalateTo[1]"');
    expect(added.text).toContain('value="x@example.com"');
    const removed = await post(a, `${PATH}/new`, { ...policyForm({ name: 'Draft' }), intent: '', __intent__: JSON.stringify({ type: 'remove', payload: { name: 'targets', index: 4 } }) });
    expect(removed.status).toBe(200);
    expect(removed.text).not.toContain('name="targets[4].priority"');
    expect((await listSlaPolicies({ accountId: a.account.id })).total).toBe(0);
  });

  it('is locked without manage_sla: the page shows, posts are refused', async () => {
    const a = await setupAccount();
    const policy = await sample(a);
    const page = await app.request(`${PATH}/${policy.id}`, { domain: a.domain, cookie: a.viewerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain(ROLE_LOCKED_MESSAGE);
    for (const form of [policyForm({ name: 'Hijack' }), { intent: 'delete' }]) {
      expect((await post(a, `${PATH}/${policy.id}`, form, a.viewerCookie)).status).toBe(403);
    }
    expect((await post(a, `${PATH}/new`, policyForm(), a.viewerCookie)).status).toBe(403);
    expect(await getSlaPolicy({ accountId: a.account.id, id: policy.id })).toMatchObject({ name: 'Sample' });
    expect((await listSlaPolicies({ accountId: a.account.id })).total).toBe(1);
  });

  it('is refused on a plan without slaManagement', async () => {
    const a = await setupAccount();
    await setAccountPlan({ domain: a.domain, planKey: 'starter' });
    const list = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.status).toBe(403);
    expect(list.text).toContain(FEATURE_DENIED_MESSAGE);
    expect((await app.request(`${PATH}/new`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(403);
    expect((await post(a, `${PATH}/new`, policyForm())).status).toBe(403);
    expect((await listSlaPolicies({ accountId: a.account.id })).total).toBe(0);
  });

  it("keeps accounts apart: another account's policy is a 404 and cannot be changed", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const policy = await sample(a, { name: 'Private' });
    expect((await app.request(`${PATH}/${policy.id}`, { domain: b.domain, cookie: b.ownerCookie })).status).toBe(404);
    expect((await post(b, `${PATH}/${policy.id}`, policyForm({ name: 'Taken over' }))).status).toBe(404);
    expect((await post(b, `${PATH}/${policy.id}`, { intent: 'delete' })).status).toBe(404);
    expect((await app.request(PATH, { domain: b.domain, cookie: b.ownerCookie })).text).not.toContain('Private');
    expect(await updateSlaPolicy({ accountId: b.account.id, actorId: b.owner.id, id: policy.id, name: 'x', inboxIds: [], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: true })).toBeUndefined();
    expect(await getSlaPolicy({ accountId: a.account.id, id: policy.id })).toMatchObject({ name: 'Private' });
  });
});

describe('findPolicyForInbox', () => {
  it('prefers the active policy listing the inbox, then the active catch-all, else none', async () => {
    const a = await setupAccount();
    const find = (inboxId: number, accountId = a.account.id) => findPolicyForInbox({ accountId, inboxId });
    expect(await find(a.support.id)).toBeNull();

    const inactiveCatchAll = await sample(a, { name: 'Old catch-all', isActive: false });
    expect(await find(a.support.id)).toBeNull();
    const catchAll = await sample(a, { name: 'Everyone' });
    await sample(a, { name: 'Later catch-all' });
    expect((await find(a.support.id))?.id).toBe(catchAll.id);

    const support = await sample(a, { name: 'Support only', inboxIds: [a.support.id] });
    expect((await find(a.support.id))?.id).toBe(support.id);
    expect((await find(a.sales.id))?.id).toBe(catchAll.id);

    // An inactive listing policy does not hide the catch-all.
    await updateSlaPolicy({ accountId: a.account.id, actorId: null, id: support.id, name: 'Support only', inboxIds: [a.support.id], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: false });
    expect((await find(a.support.id))?.id).toBe(catchAll.id);
    expect(inactiveCatchAll.id).toBeLessThan(catchAll.id);

    // Another account's policies never answer.
    const b = await setupAccount();
    expect(await find(a.support.id, b.account.id)).toBeNull();
    expect(await find(b.support.id)).toBeNull();
    expect(await findPolicyForInbox({ accountId: b.account.id, inboxId: b.support.id })).toBeNull();
  });
});
