import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createRoutingRule, listRoutingRules } from '../../app/models/automation/routing.server';
import { ASSIGN_LIMIT_MESSAGE, INBOX_TAKEN_MESSAGE, SUBRULE_INCOMPLETE_MESSAGE } from '../../app/models/automation/routing.schemas';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const PATH = '/settings/routing';

/** An account with an email and a web inbox, its owner, and a user whose custom role has no permission. */
async function setupAccount() {
  const a = await createTestAccount();
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  const email = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support mail', channelType: 'email' });
  const web = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat', channelType: 'web' });
  return {
    ...a,
    email,
    web,
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

const post = (a: Account, path: string, form: Record<string, string>, cookie = a.ownerCookie) => app.request(path, { domain: a.domain, cookie, form });
const ruleForm = (a: Account, over: Record<string, string> = {}) => ({
  intent: 'save',
  name: 'Mail rota',
  inboxId: String(a.email.id),
  rule: 'round_robin',
  assignLimit: '10',
  ...over,
});

describe('routing pages', () => {
  it('creates, updates and deletes through the routes, with the toasts and events', async () => {
    const a = await setupAccount();
    const created = await post(a, `${PATH}/new`, ruleForm(a, { rule: 'load_balancing' }));
    expect(created.status).toBe(302);
    expect(created.headers.location).toBe(PATH);
    expect(toastOf(created)).toBe('Routing Created');
    const [row] = (await listRoutingRules({ accountId: a.account.id })).rows;
    expect(row).toMatchObject({ name: 'Mail rota', rule: 'load_balancing', assignLimit: 10, inboxName: 'Support mail', channelType: 'email' });
    expect((await eventsOf(a.account.id, 'routing_rule_created'))[0].payload).toMatchObject({ inboxId: a.email.id, rule: 'load_balancing' });

    const list = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.text).toContain('Mail rota');
    expect(list.text).toContain('Load Balancing');

    const updated = await post(a, `${PATH}/${row.id}`, ruleForm(a, { name: 'Mail rota 2', assignLimit: '' }));
    expect(updated.status).toBe(302);
    expect(toastOf(updated)).toBe('Routing Updated');
    const [after] = await getDb().select().from(schema.routingRules).where(eq(schema.routingRules.id, row.id));
    expect(after).toMatchObject({ name: 'Mail rota 2', rule: 'round_robin', assignLimit: null });
    expect((await eventsOf(a.account.id, 'routing_rule_updated'))[0].payload).toMatchObject({ changed: ['name', 'rule', 'assignLimit'] });

    const deleted = await post(a, `${PATH}/${row.id}`, { intent: 'delete' });
    expect(deleted.status).toBe(302);
    expect(toastOf(deleted)).toBe('Routing Deleted');
    expect((await listRoutingRules({ accountId: a.account.id })).total).toBe(0);
    expect(await eventsOf(a.account.id, 'routing_rule_deleted')).toHaveLength(1);
  });

  it('stores a URL rule with its subrules and a team rule with its team, and nothing of the other rules', async () => {
    const a = await setupAccount();
    const [team] = await getDb().insert(schema.teams).values({ accountId: a.account.id, name: 'Sales' }).returning();
    const res = await post(
      a,
      `${PATH}/new`,
      ruleForm(a, {
        name: 'Pages',
        inboxId: String(a.web.id),
        rule: 'url',
        assignLimit: '7',
        teamId: String(team.id),
        'subrules[0].value': '/pricing',
        'subrules[0].condition': 'contains',
        'subrules[0].userId': String(a.owner.id),
      })
    );
    expect(res.status).toBe(302);
    const res2 = await post(a, `${PATH}/new`, ruleForm(a, { name: 'Team', rule: 'team', teamId: String(team.id), 'subrules[0].value': '/x' }));
    expect(res2.status).toBe(302);
    const rows = await getDb().select().from(schema.routingRules).where(eq(schema.routingRules.accountId, a.account.id));
    expect(rows.find((r) => r.name === 'Pages')).toMatchObject({
      rule: 'url',
      assignLimit: null,
      teamId: null,
      subrules: [{ value: '/pricing', condition: 'contains', userId: a.owner.id }],
    });
    expect(rows.find((r) => r.name === 'Team')).toMatchObject({ rule: 'team', teamId: team.id, subrules: [] });
  });

  it('answers 400 with the messages, saving nothing', async () => {
    const a = await setupAccount();
    const bad = async (over: Record<string, string>) => {
      const res = await post(a, `${PATH}/new`, ruleForm(a, over));
      expect(res.status).toBe(400);
      return res.text;
    };
    for (const limit of ['0', '501', '2.5', 'many']) expect(await bad({ assignLimit: limit })).toContain(ASSIGN_LIMIT_MESSAGE);
    expect(await bad({ name: '  ' })).toContain('Name is not allowed to be empty');
    expect(await bad({ inboxId: '' })).toContain('Inbox is not allowed to be empty');
    expect(await bad({ rule: '' })).toContain('Rule is not allowed to be empty');
    expect(await bad({ rule: 'team' })).toContain('Team is not allowed to be empty');
    // Rules by inbox type: load balancing for email inboxes only, URL for web inboxes only.
    expect(await bad({ inboxId: String(a.web.id), rule: 'load_balancing' })).toContain('Load Balancing is available for email inboxes only');
    expect(await bad({ rule: 'url', 'subrules[0].value': '/x', 'subrules[0].condition': 'contains', 'subrules[0].userId': String(a.owner.id) })).toContain(
      'URL routing is available for web inboxes only'
    );
    expect(await bad({ inboxId: String(a.web.id), rule: 'url', 'subrules[0].value': '/pricing', 'subrules[0].condition': 'contains' })).toContain(
      SUBRULE_INCOMPLETE_MESSAGE
    );
    // What was typed comes back.
    expect(await bad({ name: 'Kept name', assignLimit: '501' })).toContain('value="Kept name"');
    expect((await listRoutingRules({ accountId: a.account.id })).total).toBe(0);

    // One rule per inbox.
    await createRoutingRule({
      accountId: a.account.id,
      actorId: a.owner.id,
      name: 'First',
      inboxId: a.email.id,
      rule: 'round_robin',
      assignLimit: null,
      teamId: null,
      subrules: [],
    });
    expect(await bad({ name: 'Second' })).toContain(INBOX_TAKEN_MESSAGE);
    // An unknown intent is a 400 too.
    expect((await post(a, `${PATH}/new`, { intent: 'explode' })).status).toBe(400);
  });

  it('offers the rules of the chosen inbox, and adds a subrule row without saving (no JavaScript)', async () => {
    const a = await setupAccount();
    const ruleOptions = (html: string) =>
      [...(/<select[^>]*name="rule"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '').matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
    const fresh = await app.request(`${PATH}/new`, { domain: a.domain, cookie: a.ownerCookie });
    expect(ruleOptions(fresh.text)).toEqual(['round_robin', 'active_agents', 'last_agent_assigned', 'team']);
    const forEmail = await post(a, `${PATH}/new`, {
      ...ruleForm(a, { intent: '' }),
      __intent__: JSON.stringify({ type: 'validate', payload: { name: 'inboxId' } }),
    });
    expect(forEmail.status).toBe(200);
    expect(ruleOptions(forEmail.text)).toEqual(['round_robin', 'active_agents', 'last_agent_assigned', 'team', 'load_balancing']);
    const forWeb = await post(a, `${PATH}/new`, {
      ...ruleForm(a, { intent: '', inboxId: String(a.web.id) }),
      __intent__: JSON.stringify({ type: 'validate', payload: { name: 'inboxId' } }),
    });
    expect(ruleOptions(forWeb.text)).toEqual(['round_robin', 'active_agents', 'last_agent_assigned', 'team', 'url']);

    const added = await post(a, `${PATH}/new`, {
      ...ruleForm(a, { intent: '', name: 'Draft', inboxId: String(a.web.id), rule: 'url', 'subrules[0].value': '/a', 'subrules[0].condition': 'equals' }),
      __intent__: JSON.stringify({ type: 'insert', payload: { name: 'subrules', defaultValue: { value: '', condition: 'contains' } } }),
    });
    expect(added.status).toBe(200);
    expect(added.text).toContain('Subrule 2 value');
    expect(added.text).toContain('value="Draft"');
    expect((await listRoutingRules({ accountId: a.account.id })).total).toBe(0);
  });

  it('lets everyone look, but only manage_routings change (403)', async () => {
    const a = await setupAccount();
    const rule = await createRoutingRule({
      accountId: a.account.id,
      actorId: a.owner.id,
      name: 'Rota',
      inboxId: a.email.id,
      rule: 'round_robin',
      assignLimit: null,
      teamId: null,
      subrules: [],
    });
    const page = await app.request(`${PATH}/${rule.id}`, { domain: a.domain, cookie: a.viewerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="locked-note"');
    expect((await post(a, `${PATH}/new`, ruleForm(a, { inboxId: String(a.web.id) }), a.viewerCookie)).status).toBe(403);
    expect((await post(a, `${PATH}/${rule.id}`, { intent: 'delete' }, a.viewerCookie)).status).toBe(403);
    expect((await listRoutingRules({ accountId: a.account.id })).total).toBe(1);
  });

  it("never shows or changes another account's rule, nor takes its inbox", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const ruleOfB = await createRoutingRule({
      accountId: b.account.id,
      actorId: b.owner.id,
      name: 'B rota',
      inboxId: b.email.id,
      rule: 'round_robin',
      assignLimit: null,
      teamId: null,
      subrules: [],
    });
    expect((await app.request(`${PATH}/${ruleOfB.id}`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
    expect((await post(a, `${PATH}/${ruleOfB.id}`, ruleForm(a))).status).toBe(404);
    expect((await post(a, `${PATH}/${ruleOfB.id}`, { intent: 'delete' })).status).toBe(404);
    const taken = await post(a, `${PATH}/new`, ruleForm(a, { inboxId: String(b.web.id) }));
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('Choose an inbox of this account');
    const list = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.text).not.toContain('B rota');
    const [still] = await getDb().select().from(schema.routingRules).where(eq(schema.routingRules.id, ruleOfB.id));
    expect(still.name).toBe('B rota');
  });
});
