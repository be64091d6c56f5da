import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { setAccountPlan } from '../../app/models/accounts/accounts.server';
import { listConversationRuns, listRuleRuns } from '../../app/models/automation/run-history.server';
import { createWorkflow, getWorkflow, listWorkflows, updateWorkflow, WorkflowInputError } from '../../app/models/automation/workflows.server';
import { workflowLimitMessage } from '../../app/models/automation/workflows.schemas';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import { globalSearch } from '../../app/models/search/registry.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** An account with its owner and a user whose custom role has no permission. */
async function setupAccount() {
  const a = await createTestAccount();
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  return {
    ...a,
    viewer,
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

const post = (a: Account, path: string, form: Record<string, string | string[]>, cookie = a.ownerCookie) => app.request(path, { domain: a.domain, cookie, form });
const get = (a: Account, path: string, cookie = a.ownerCookie) => app.request(path, { domain: a.domain, cookie });

/** HTML-escaped as React renders text. */
const html = (s: string) => s.replace(/&/g, '&amp;').replace(/'/g, '&#x27;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const create = (a: Account, name = 'Triage', description = '') => createWorkflow({ accountId: a.account.id, actorId: a.owner.id, name, description });

describe('workflow pages', () => {
  it('creates through the dialog, builds with add-row submissions, saves, toggles and deletes, with events', async () => {
    const a = await setupAccount();
    const empty = await get(a, '/workflows');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('data-testid="empty"');

    const created = await post(a, '/workflows/builder', { name: 'VIP triage', description: 'Routes VIP mail' });
    expect(created.status).toBe(302);
    const [row] = (await listWorkflows({ accountId: a.account.id })).rows;
    expect(created.headers.location).toBe(`/workflows/builder/${row.id}`);
    expect(toastOf(created)).toBe('Workflow Created');
    expect(row).toMatchObject({ name: 'VIP triage', description: 'Routes VIP mail', event: 'conversation_created', isActive: false, createdBy: 'Olive Owner' });
    expect(await eventsOf(a.account.id, 'workflow_created')).toHaveLength(1);
    const path = `/workflows/builder/${row.id}`;

    // Adding a row re-renders the builder with the draft kept, saving nothing.
    const added = await post(a, path, {
      name: 'VIP triage (draft)',
      event: 'conversation_created',
      'conditions[0].field': 'country',
      'conditions[0].op': 'equal',
      'conditions[0].value': 'France',
      __intent__: JSON.stringify({ type: 'insert', payload: { name: 'actions', defaultValue: { type: 'leave_note' } } }),
    });
    expect(added.status).toBe(200);
    expect(added.text).toContain('value="VIP triage (draft)"');
    expect(added.text).toContain('value="France"');
    expect(added.text).toContain('aria-label="Action 1 note"');
    expect((await getWorkflow({ accountId: a.account.id, id: row.id }))!.name).toBe('VIP triage');

    const [tag] = await getDb().insert(schema.tags).values({ accountId: a.account.id, name: 'vip' }).returning();
    const saved = await post(a, path, {
      intent: 'save',
      name: 'VIP triage',
      description: 'Routes VIP mail',
      event: 'conversation_created',
      conditionOperator: 'or',
      'conditions[0].field': 'country',
      'conditions[0].op': 'equal',
      'conditions[0].value': 'France',
      'conditions[1].field': 'new_contact',
      'filters[0].field': 'domain',
      'filters[0].op': 'endsWith',
      'filters[0].value': 'vip.example',
      'actions[0].type': 'assign_user',
      'actions[0].userId': String(a.owner.id),
      'actions[1].type': 'assign_tag',
      'actions[1].tagIds': [String(tag.id)],
      'actions[2].type': 'leave_note',
      'actions[2].note': '  VIP customer  ',
    });
    expect(saved.status).toBe(302);
    expect(toastOf(saved)).toBe('Workflow Updated');
    expect(await getWorkflow({ accountId: a.account.id, id: row.id })).toMatchObject({
      event: 'conversation_created',
      conditionOperator: 'or',
      conditions: [
        { field: 'country', op: 'equal', value: 'France' },
        { field: 'new_contact', op: 'is', value: '' },
      ],
      filters: [{ field: 'domain', op: 'endsWith', value: 'vip.example' }],
      actions: [{ type: 'assign_user', userId: a.owner.id }, { type: 'assign_tag', tagIds: [tag.id] }, { type: 'leave_note', note: 'VIP customer' }],
    });
    const [updated] = await eventsOf(a.account.id, 'workflow_updated');
    expect(updated.payload).toMatchObject({ changed: expect.arrayContaining(['conditions', 'filters', 'actions', 'conditionOperator']) });

    // The builder shows what was saved.
    const page = await get(a, path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="vip.example"');
    expect(page.text).toContain('VIP customer');

    // The list: the row number, the event label, the creator, the status; the search by term.
    const list = await get(a, '/workflows');
    expect(list.text).toContain('Conversation created');
    expect(list.text).toContain('Olive Owner');
    expect(list.text).toContain(html('Are you sure you want to update status ?'));
    expect((await get(a, '/workflows?q=nothing-like-it')).text).toContain('No workflows match your search.');
    expect((await get(a, '/workflows?q=routes%20vip')).text).toContain('VIP triage');

    const on = await post(a, '/workflows?index', { intent: 'status', id: String(row.id), isActive: 'true' });
    expect(on.status).toBe(302);
    expect((await getWorkflow({ accountId: a.account.id, id: row.id }))!.isActive).toBe(true);
    expect((await eventsOf(a.account.id, 'workflow_updated')).at(-1)!.payload).toMatchObject({ changed: ['isActive'], isActive: true });
    const off = await post(a, path, { intent: 'status', id: String(row.id), isActive: 'false' });
    expect(off.status).toBe(302);
    expect((await getWorkflow({ accountId: a.account.id, id: row.id }))!.isActive).toBe(false);

    expect((await post(a, path, { intent: 'frobnicate' })).status).toBe(400);
    const deleted = await post(a, '/workflows?index', { intent: 'delete', id: String(row.id) });
    expect(deleted.status).toBe(302);
    expect(toastOf(deleted)).toBe('Workflow Deleted');
    expect(await getWorkflow({ accountId: a.account.id, id: row.id })).toBeUndefined();
    expect(await eventsOf(a.account.id, 'workflow_deleted')).toHaveLength(1);
    expect((await get(a, path)).status).toBe(404);
  });

  it('numbers rows from the page size and reports defaultWorkflowCount', async () => {
    const a = await setupAccount();
    for (let i = 1; i <= 3; i++) await create(a, `Flow ${i}`);
    const page2 = await listWorkflows({ accountId: a.account.id, page: 2, pageSize: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, pageSize: 2, defaultWorkflowCount: 3 });
    expect(page2.rows.map((r) => r.name)).toEqual(['Flow 1']);
    const searched = await listWorkflows({ accountId: a.account.id, term: 'flow 2' });
    expect(searched).toMatchObject({ total: 1, defaultWorkflowCount: 3 });
    const listPage = await get(a, '/workflows');
    expect(listPage.text).toMatch(/<td>1<\/td><td><a[^>]*>Flow 3<\/a>/);
  });

  it("answers bad input with 400 and the specification's messages, keeping what was typed", async () => {
    const a = await setupAccount();
    const tooLong = await post(a, '/workflows/builder', { name: 'A name far longer than twenty', description: 'x'.repeat(151) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('Length must be less than or equal to 20 characters');
    expect(tooLong.text).toContain('Length must be less than or equal to 150 characters');
    expect(tooLong.text).toContain('value="A name far longer than twenty"');
    const noName = await post(a, '/workflows/builder', { name: '  ' });
    expect(noName.status).toBe(400);
    expect(noName.text).toContain('Name is not allowed to be empty');
    expect(await listWorkflows({ accountId: a.account.id })).toMatchObject({ total: 0 });

    const w = await create(a);
    const path = `/workflows/builder/${w.id}`;
    const bad = await post(a, path, {
      intent: 'save',
      name: 'Triage',
      event: 'conversation_created',
      'conditions[0].field': 'referral_domain',
      'conditions[0].op': 'equal',
      'conditions[0].value': 'not a domain',
      'filters[0].field': 'subject',
      'filters[0].op': 'contains',
      'filters[0].value': '',
      'actions[0].type': 'assign_user',
      'actions[1].type': 'leave_note',
      'actions[1].note': 'x',
      'actions[2].type': 'set_priority',
      'actions[3].type': 'add_contact_title',
      'actions[3].title': 'CEO',
    });
    expect(bad.status).toBe(400);
    for (const message of [
      'Please enter a valid domain.',
      'Value is required',
      'Assignee must be specified',
      'Length must be at least 2 characters',
      'Priority must be specified',
      'Add title is not offered for Conversation created',
    ])
      expect(bad.text).toContain(message);
    expect(bad.text).toContain('value="not a domain"');

    const noActions = await post(a, path, { intent: 'save', name: 'Triage', event: 'contact_created' });
    expect(noActions.status).toBe(400);
    expect(noActions.text).toContain('Action must be specified');
    const longNote = await post(a, path, { intent: 'save', name: 'Triage', event: 'review_received', 'actions[0].type': 'leave_note', 'actions[0].note': 'n'.repeat(501) });
    expect(longNote.text).toContain('Length must be less than or equal to 500 characters');
    const badWebsite = await post(a, path, { intent: 'save', name: 'Triage', event: 'contact_created', 'actions[0].type': 'add_contact_website', 'actions[0].website': 'nope' });
    expect(badWebsite.text).toContain('Website must be a valid uri');
    const noCase = await post(a, path, { intent: 'save', name: 'Triage', event: 'survey_received', 'actions[0].type': 'convert_to_case', 'actions[0].title': 'T' });
    expect(noCase.text).toContain('Inbox must be specified');
    expect(noCase.text).toContain('Description is required');
    // Nothing half-written.
    expect(await getWorkflow({ accountId: a.account.id, id: w.id })).toMatchObject({ event: 'conversation_created', actions: [], conditions: [] });

    // The model holds the event's offer for any caller, too.
    await expect(
      updateWorkflow({
        accountId: a.account.id,
        actorId: a.owner.id,
        id: w.id,
        input: { name: 'x', description: '', event: 'contact_created', conditionOperator: 'and', conditions: [], filters: [], actions: [{ type: 'delete_conversation', inboxId: 1 }] },
      }),
    ).rejects.toThrow('Delete conversation is not offered for Contact created');

    // A workflow without actions cannot be switched on.
    const activate = await post(a, '/workflows?index', { intent: 'status', id: String(w.id), isActive: 'true' });
    expect(activate.status).toBe(400);
    expect(activate.text).toContain('Action must be specified');
  });

  it('refuses without manage_workflow_rules, without advanceWorkflows and past advanceWorkflowsLimit', async () => {
    const a = await setupAccount();
    const w = await create(a);
    // The role.
    expect((await post(a, '/workflows/builder', { name: 'Sneaky' }, a.viewerCookie)).status).toBe(403);
    expect((await get(a, '/workflows/builder', a.viewerCookie)).status).toBe(403);
    expect((await get(a, `/workflows/builder/${w.id}`, a.viewerCookie)).status).toBe(403);
    expect((await post(a, '/workflows?index', { intent: 'delete', id: String(w.id) }, a.viewerCookie)).status).toBe(403);
    expect((await post(a, `/workflows/builder/${w.id}`, { intent: 'status', id: String(w.id), isActive: 'true' }, a.viewerCookie)).status).toBe(403);
    const viewerList = await get(a, '/workflows', a.viewerCookie);
    expect(viewerList.status).toBe(200);
    expect(viewerList.text).toContain('data-testid="create-workflow-denied"');
    expect(await getWorkflow({ accountId: a.account.id, id: w.id })).toBeDefined();

    // The limit: growth allows 10.
    await setAccountPlan({ domain: a.domain, planKey: 'growth' });
    for (let i = 2; i <= 10; i++) await create(a, `Flow ${i}`);
    const full = await post(a, '/workflows/builder', { name: 'Eleventh' });
    expect(full.status).toBe(403);
    expect(full.text).toContain(html(workflowLimitMessage(10)));
    await expect(create(a, 'Eleventh')).rejects.toBeInstanceOf(WorkflowInputError);
    expect((await listWorkflows({ accountId: a.account.id })).defaultWorkflowCount).toBe(10);
    expect((await get(a, '/workflows/builder')).text).toContain(html(workflowLimitMessage(10)));
    expect((await get(a, '/workflows')).text).toContain('data-testid="create-workflow-denied"');

    // The feature: starter has none; the list is the empty state, the builder the plan page.
    await setAccountPlan({ domain: a.domain, planKey: 'starter' });
    const list = await get(a, '/workflows');
    expect(list.text).toContain('data-testid="empty"');
    expect(list.text).toContain(FEATURE_DENIED_MESSAGE);
    expect(list.text).not.toContain('Flow 2');
    expect((await post(a, '/workflows/builder', { name: 'Nope' })).status).toBe(403);
    expect((await get(a, `/workflows/builder/${w.id}`)).status).toBe(403);
    await expect(create(a, 'Nope')).rejects.toThrow(FEATURE_DENIED_MESSAGE);
  });

  it("keeps one account out of another's workflows", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const w = await create(a, 'Private');
    expect(await getWorkflow({ accountId: b.account.id, id: w.id })).toBeUndefined();
    expect((await get(b, `/workflows/builder/${w.id}`)).status).toBe(404);
    expect((await post(b, `/workflows/builder/${w.id}`, { intent: 'save', name: 'Hijack', event: 'review_received', 'actions[0].type': 'leave_note', 'actions[0].note': 'hi' })).status).toBe(404);
    expect((await post(b, '/workflows?index', { intent: 'delete', id: String(w.id) })).status).toBe(404);
    expect((await post(b, '/workflows?index', { intent: 'status', id: String(w.id), isActive: 'false' })).status).toBe(404);
    expect((await get(b, '/workflows')).text).not.toContain('Private');
    expect(await getWorkflow({ accountId: a.account.id, id: w.id })).toMatchObject({ name: 'Private' });

    // An action naming another account's user, tag or inbox is refused as unchosen.
    const bInbox = await createInbox({ accountId: b.account.id, actorId: b.owner.id, name: 'B mail', channelType: 'email', email: `b@${b.domain}.test` });
    const save = (extra: Record<string, string>) => post(a, `/workflows/builder/${w.id}`, { intent: 'save', name: 'Private', event: 'conversation_created', ...extra });
    const foreignUser = await save({ 'actions[0].type': 'assign_user', 'actions[0].userId': String(b.owner.id) });
    expect(foreignUser.status).toBe(400);
    expect(foreignUser.text).toContain('Assignee must be specified');
    const foreignInbox = await save({ 'actions[0].type': 'delete_conversation', 'actions[0].inboxId': String(bInbox.id) });
    expect(foreignInbox.status).toBe(400);
    expect(foreignInbox.text).toContain('Inbox must be specified');
    expect((await getWorkflow({ accountId: a.account.id, id: w.id }))!.actions).toEqual([]);

    // The global search's workflows group is scoped too.
    await create(a, 'Searchable', 'escalation ladder');
    expect((await globalSearch({ accountId: a.account.id, q: 'ladder' })).find((g) => g.group === 'Workflows')?.hits).toMatchObject([{ title: 'Searchable' }]);
    expect((await globalSearch({ accountId: b.account.id, q: 'ladder' })).find((g) => g.group === 'Workflows')).toBeUndefined();
  });
});

describe('run history', () => {
  it('groups the log into runs, newest first, with derived states, per workflow and per conversation', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const w = await create(a, 'Logged');
    const other = await create(a, 'Other');
    const log = (eventId: number, step: string, extra: Partial<typeof schema.automationRunLog.$inferInsert> = {}) =>
      getDb()
        .insert(schema.automationRunLog)
        .values({ accountId: a.account.id, eventId, eventType: 'conversation_created', ruleId: w.id, step: step as never, ...extra });
    await log(101, 'not_matched', { detail: { reason: 'condition 1 (country) does not hold' }, conversationId: 7 });
    await log(102, 'matched', { conversationId: 8 });
    await log(102, 'action_applied', { actionIndex: 0, actionType: 'assign_user', detail: { result: 'assigned to Olive Owner' }, conversationId: 8 });
    await log(102, 'action_failed', { actionIndex: 1, actionType: 'assign_tag', detail: { error: 'tag deleted' }, conversationId: 8 });
    await log(103, 'matched', { conversationId: 8 });
    await log(103, 'action_applied', { actionIndex: 0, actionType: 'assign_user', conversationId: 8 });
    await log(103, 'matched', { ruleId: other.id, conversationId: 8 });
    await log(103, 'action_failed', { ruleId: other.id, actionIndex: 0, actionType: 'leave_note', detail: { error: 'boom' }, conversationId: 8 });

    const runs = await listRuleRuns({ accountId: a.account.id, ruleId: w.id });
    expect(runs.total).toBe(3);
    expect(runs.runs.map((r) => [r.eventId, r.state])).toEqual([
      [103, 'applied'],
      [102, 'partly_failed'],
      [101, 'not_matched'],
    ]);
    expect(runs.runs[1].lines.map((l) => l.step)).toEqual(['matched', 'action_applied', 'action_failed']);
    expect(runs.runs[2]).toMatchObject({ conversationId: 7, ruleName: 'Logged' });
    const page2 = await listRuleRuns({ accountId: a.account.id, ruleId: w.id, page: 2, pageSize: 2 });
    expect(page2.runs.map((r) => r.eventId)).toEqual([101]);

    const byConversation = await listConversationRuns({ accountId: a.account.id, conversationId: 8 });
    expect(byConversation.map((r) => [r.eventId, r.ruleName, r.state])).toEqual([
      [103, 'Other', 'failed'],
      [103, 'Logged', 'applied'],
      [102, 'Logged', 'partly_failed'],
    ]);
    expect(await listRuleRuns({ accountId: b.account.id, ruleId: w.id })).toMatchObject({ total: 0, runs: [] });
    expect(await listConversationRuns({ accountId: b.account.id, conversationId: 8 })).toEqual([]);

    const page = await get(a, `/workflows/builder/${w.id}?tab=runs`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Partly failed');
    expect(page.text).toContain('tag deleted');
    expect(page.text).toContain('condition 1 (country) does not hold');
    expect((await get(a, `/workflows/builder/${w.id}?tab=runs`, a.viewerCookie)).status).toBe(403);
  });
});
