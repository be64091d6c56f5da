import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import {
  RULE_NAME_REQUIRED,
  SOURCE_EMPTY,
  SOURCE_INVALID,
  SOURCE_TYPE_REQUIRED,
  SOURCES_REQUIRED,
  actionNotOfferedMessage,
} from '../../app/models/automation/automation-rules.schemas';
import { createAutomationRule, getAutomationRule, listAutomationRules } from '../../app/models/automation/automation-rules.server';
import {
  ACTION_REQUIRED,
  ASSIGNEE_REQUIRED,
  CASE_DESCRIPTION_REQUIRED,
  CONDITION_NUMBER,
  DOMAIN_INVALID,
  INBOX_REQUIRED,
  NOTE_REQUIRED,
  PRIORITY_REQUIRED,
  STATUS_REQUIRED,
  TAGS_REQUIRED,
  TITLE_LENGTH_MIN,
} from '../../app/models/automation/rule-types';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTag } from '../../app/models/productivity/tags.server';
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

const PATH = '/settings/automation-rules';

async function setupAccount() {
  const a = await createTestAccount();
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  const inbox = (name: string) => createInbox({ accountId: a.account.id, actorId: a.owner.id, name, channelType: 'email', email: `${name.toLowerCase()}@${a.domain}.test` });
  return {
    ...a,
    viewer,
    support: await inbox('Support'),
    sales: await inbox('Sales'),
    vip: await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'vip', color: 'red' }),
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

type Form = Record<string, string | string[]>;
/** A valid rule as the page posts it: on new conversations of Support, if the domain is acme.com, assign the owner. */
function ruleForm(a: Account, over: Form = {}): Form {
  return {
    intent: 'save',
    name: 'VIP routing',
    description: 'Big customers first',
    event: 'conversation_created',
    sources: [String(a.support.id)],
    conditionOperator: 'and',
    'conditions[0].field': 'domain',
    'conditions[0].op': 'equal',
    'conditions[0].value': 'acme.com',
    'actions[0].type': 'assign_user',
    'actions[0].userId': String(a.owner.id),
    'actions[1].type': 'assign_tag',
    'actions[1].tagIds': [String(a.vip.id)],
    isActive: 'on',
    ...over,
  };
}

const post = (a: Account, path: string, form: Form, cookie = a.ownerCookie) => app.request(path, { domain: a.domain, cookie, form });

describe('automation rule pages', () => {
  it('creates, updates and deletes through the routes, with the toasts and events', async () => {
    const a = await setupAccount();
    const page = await app.request(`${PATH}/new`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.status).toBe(200);

    const created = await post(a, `${PATH}/new`, ruleForm(a));
    expect(created.status).toBe(302);
    expect(created.headers.location).toBe(PATH);
    expect(toastOf(created)).toBe('Automation Rule Created');
    const { rows } = await listAutomationRules({ accountId: a.account.id });
    expect(rows).toHaveLength(1);
    const rule = rows[0];
    expect(rule).toMatchObject({
      kind: 'inbox_rule',
      name: 'VIP routing',
      description: 'Big customers first',
      event: 'conversation_created',
      sourceType: null,
      sources: [a.support.id],
      conditionOperator: 'and',
      conditions: [{ field: 'domain', op: 'equal', value: 'acme.com' }],
      actions: [
        { type: 'assign_user', userId: a.owner.id },
        { type: 'assign_tag', tagIds: [a.vip.id] },
      ],
      isActive: true,
      createdById: a.owner.id,
    });
    expect(await eventsOf(a.account.id, 'automation_rule_created')).toHaveLength(1);

    const list = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.text).toContain('VIP routing');
    expect(list.text).toContain('Conversation created');
    const edit = await app.request(`${PATH}/${rule.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(edit.status).toBe(200);
    expect(edit.text).toContain('value="acme.com"');

    const updated = await post(
      a,
      `${PATH}/${rule.id}`,
      ruleForm(a, {
        name: 'Survey follow-up',
        event: 'survey_received',
        sourceType: 'email',
        sources: [String(a.support.id), String(a.sales.id)],
        conditionOperator: 'or',
        'conditions[0].field': 'rating',
        'conditions[0].op': 'below',
        'conditions[0].value': '3',
        'actions[0].type': 'leave_note',
        'actions[0].note': 'Unhappy customer: call back',
        'actions[0].userId': '',
        isActive: [],
      }),
    );
    expect(updated.status).toBe(302);
    expect(toastOf(updated)).toBe('Automation Rule Updated');
    expect(await getAutomationRule({ accountId: a.account.id, id: rule.id })).toMatchObject({
      name: 'Survey follow-up',
      event: 'survey_received',
      sourceType: 'email',
      sources: [a.support.id, a.sales.id],
      conditionOperator: 'or',
      conditions: [{ field: 'rating', op: 'below', value: '3' }],
      actions: [{ type: 'leave_note', note: 'Unhappy customer: call back' }, { type: 'assign_tag', tagIds: [a.vip.id] }],
      isActive: false,
    });
    const [updateEvent] = await eventsOf(a.account.id, 'automation_rule_updated');
    expect(updateEvent.payload).toMatchObject({ changed: expect.arrayContaining(['name', 'event', 'sourceType', 'sources', 'conditions', 'actions', 'isActive']) });

    const deleted = await post(a, `${PATH}/${rule.id}`, { intent: 'delete' });
    expect(deleted.status).toBe(302);
    expect(toastOf(deleted)).toBe('Automation Rule Deleted');
    expect(await getAutomationRule({ accountId: a.account.id, id: rule.id })).toBeUndefined();
    expect(await eventsOf(a.account.id, 'automation_rule_deleted')).toHaveLength(1);

    expect((await post(a, `${PATH}/new`, { intent: 'frobnicate' })).status).toBe(400);
    expect((await app.request(`${PATH}/abc`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
  });

  it('answers each section 5 message with 400 and the typed values, writing nothing', async () => {
    const a = await setupAccount();
    const other = await setupAccount();
    const cases: [Form, string][] = [
      [{ name: 'ab' }, RULE_NAME_REQUIRED],
      [{ name: '' }, RULE_NAME_REQUIRED],
      [{ sources: [] }, SOURCES_REQUIRED],
      [{ sources: ['abc'] }, SOURCE_INVALID],
      [{ sources: ['', String(a.support.id)] }, SOURCE_EMPTY],
      [{ sources: [String(other.support.id)] }, SOURCE_INVALID],
      [{ event: 'survey_received', 'actions[0].type': 'leave_note', 'actions[0].note': 'Hello', 'actions[1].type': 'assign_tag' }, SOURCE_TYPE_REQUIRED],
      [{ 'conditions[0].value': 'not a domain' }, DOMAIN_INVALID],
      [{ 'conditions[0].field': 'rating', 'conditions[0].op': 'above', 'conditions[0].value': 'five' }, CONDITION_NUMBER],
      [{ 'actions[0].type': '', 'actions[0].userId': '', 'actions[1].type': '', 'actions[1].tagIds': [] }, ACTION_REQUIRED],
      [{ 'actions[0].userId': '' }, ASSIGNEE_REQUIRED],
      [{ 'actions[0].userId': String(other.owner.id) }, ASSIGNEE_REQUIRED],
      [{ 'actions[1].tagIds': [] }, TAGS_REQUIRED],
      [{ 'actions[0].type': 'leave_note', 'actions[0].note': '' }, NOTE_REQUIRED],
      [{ 'actions[0].type': 'set_status' }, STATUS_REQUIRED],
      [{ 'actions[0].type': 'set_priority' }, PRIORITY_REQUIRED],
      [{ event: 'message_created', 'actions[0].type': 'move_conversation' }, INBOX_REQUIRED],
      [{ 'actions[0].type': 'delete_conversation', 'actions[0].inboxId': String(other.support.id) }, INBOX_REQUIRED],
      [{ event: 'survey_received', sourceType: 'web', 'actions[0].type': 'convert_to_case', 'actions[0].inboxId': String(a.support.id), 'actions[0].title': 'x' }, TITLE_LENGTH_MIN],
      [{ event: 'survey_received', sourceType: 'web', 'actions[0].type': 'convert_to_case', 'actions[0].inboxId': String(a.support.id), 'actions[0].title': 'Call back' }, CASE_DESCRIPTION_REQUIRED],
      [{ event: 'review_received', 'actions[0].type': 'set_status', 'actions[0].status': 'open' }, actionNotOfferedMessage('set_status', 'review_received')],
    ];
    for (const [over, message] of cases) {
      const res = await post(a, `${PATH}/new`, ruleForm(a, { name: 'Typed rule', ...over }));
      expect(res.status, message).toBe(400);
      expect(res.text, message).toContain(message.replace(/'/g, '&#x27;'));
    }
    // No actions at all.
    const form = ruleForm(a);
    for (const k of Object.keys(form)) if (k.startsWith('actions')) delete form[k];
    const none = await post(a, `${PATH}/new`, form);
    expect(none.status).toBe(400);
    expect(none.text).toContain(ACTION_REQUIRED);
    const typed = await post(a, `${PATH}/new`, ruleForm(a, { name: 'Typed rule', 'conditions[0].value': 'not a domain' }));
    expect(typed.text).toContain('value="Typed rule"');
    expect(typed.text).toContain('value="not a domain"');
    expect((await listAutomationRules({ accountId: a.account.id })).total).toBe(0);
  });

  it('"Add", "Remove" and "Apply" re-render the draft without saving', async () => {
    const a = await setupAccount();
    const added = await post(a, `${PATH}/new`, { ...ruleForm(a), intent: '', __intent__: JSON.stringify({ type: 'insert', payload: { name: 'actions', defaultValue: { type: 'set_priority' } } }) });
    expect(added.status).toBe(200);
    expect(added.text).toContain('name="actions[2].priority"');
    expect(added.text).toContain('value="acme.com"');
    const applied = await post(a, `${PATH}/new`, { ...ruleForm(a, { event: 'survey_received' }), intent: '', __intent__: JSON.stringify({ type: 'validate', payload: { name: 'event' } }) });
    expect(applied.status).toBe(200);
    expect(applied.text).toContain('Chat survey');
    expect(applied.text).toContain('Add action: Convert to case');
    expect((await listAutomationRules({ accountId: a.account.id })).total).toBe(0);
  });

  it('is locked without manage_workflow_rules: the page shows, posts are refused', async () => {
    const a = await setupAccount();
    const rule = await createAutomationRule({
      accountId: a.account.id,
      actorId: a.owner.id,
      input: { name: 'Keep me', description: '', event: 'conversation_created', sourceType: null, sources: [a.support.id], conditionOperator: 'and', conditions: [], actions: [{ type: 'set_priority', priority: 'high' }], isActive: true },
    });
    const page = await app.request(`${PATH}/${rule.id}`, { domain: a.domain, cookie: a.viewerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain(ROLE_LOCKED_MESSAGE);
    expect((await post(a, `${PATH}/${rule.id}`, ruleForm(a, { name: 'Hijacked' }), a.viewerCookie)).status).toBe(403);
    expect((await post(a, `${PATH}/${rule.id}`, { intent: 'delete' }, a.viewerCookie)).status).toBe(403);
    expect((await post(a, `${PATH}/new`, ruleForm(a), a.viewerCookie)).status).toBe(403);
    expect(await getAutomationRule({ accountId: a.account.id, id: rule.id })).toMatchObject({ name: 'Keep me' });
    expect((await listAutomationRules({ accountId: a.account.id })).total).toBe(1);
  });

  it("keeps accounts apart, and workflows out: another account's rule and a workflow are 404s", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const rule = await createAutomationRule({
      accountId: a.account.id,
      actorId: a.owner.id,
      input: { name: 'Private rule', description: '', event: 'conversation_created', sourceType: null, sources: [a.support.id], conditionOperator: 'and', conditions: [], actions: [{ type: 'set_priority', priority: 'high' }], isActive: true },
    });
    expect((await app.request(`${PATH}/${rule.id}`, { domain: b.domain, cookie: b.ownerCookie })).status).toBe(404);
    expect((await post(b, `${PATH}/${rule.id}`, ruleForm(b, { name: 'Taken over' }))).status).toBe(404);
    expect((await post(b, `${PATH}/${rule.id}`, { intent: 'delete' })).status).toBe(404);
    expect((await app.request(PATH, { domain: b.domain, cookie: b.ownerCookie })).text).not.toContain('Private rule');
    expect(await getAutomationRule({ accountId: a.account.id, id: rule.id })).toMatchObject({ name: 'Private rule' });

    const [workflow] = await getDb().insert(schema.automationRules).values({ accountId: a.account.id, kind: 'workflow', name: 'A workflow', event: 'contact_created' }).returning();
    expect((await app.request(`${PATH}/${workflow.id}`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
    expect((await post(a, `${PATH}/${workflow.id}`, { intent: 'delete' })).status).toBe(404);
    expect((await listAutomationRules({ accountId: a.account.id })).rows.map((r) => r.name)).toEqual(['Private rule']);
  });
});
