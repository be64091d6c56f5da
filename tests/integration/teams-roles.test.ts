import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { setAccountPlan } from '../../app/models/accounts/accounts.server';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import {
  createRole,
  DEFAULT_ROLE_DELETE_MESSAGE,
  deleteRole,
  getRole,
  listRoles,
  OWNER_ROLE_LOCKED_MESSAGE,
  ROLE_IN_USE_MESSAGE,
  ROLE_NAME_TAKEN_MESSAGE,
  updateRole,
} from '../../app/models/roles/roles.server';
import { createTeam, deleteTeam, getTeam, listTeams, TEAM_FOREIGN_MEMBER_MESSAGE, TEAM_NAME_TAKEN_MESSAGE, TeamInputError, updateTeam } from '../../app/models/teams/teams.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setupAccount() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Agnes' });
  const ownerCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  return { ...a, agent, ownerCookie, agentCookie };
}

async function eventsOf(accountId: number, type: string) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type))).orderBy(schema.domainEvents.id);
}

/** Whether the server-rendered permission box is ticked. */
function isChecked(html: string, permission: string) {
  const tag = html.match(new RegExp(`<input[^>]*name="permissions"[^>]*value="${permission}"[^>]*>|<input[^>]*value="${permission}"[^>]*name="permissions"[^>]*>`));
  if (!tag) throw new Error(`no box for ${permission}`);
  return /\schecked=""/.test(tag[0]);
}

const allRolePermissions = (form: Record<string, string | string[]>) => ({ intent: 'save', ...form });

describe('tenancy of teams', () => {
  it("account A cannot read, edit or delete B's team, by URL or by form", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const teamB = await createTeam({ accountId: b.account.id, actorId: b.owner.id, name: 'Bravo', description: 'B team', memberIds: [b.agent.id] });

    const read = await app.request(`/settings/teams/${teamB.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(read.status).toBe(404);
    expect(read.text).not.toContain('Bravo');

    const edit = await app.request(`/settings/teams/${teamB.id}`, {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'save', name: 'Hijacked', description: '', assigneeIds: [String(a.agent.id)] },
    });
    expect(edit.status).toBe(404);
    const del = await app.request(`/settings/teams/${teamB.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(404);

    const still = await getTeam({ accountId: b.account.id, id: teamB.id });
    expect(still).toMatchObject({ name: 'Bravo', description: 'B team', memberIds: [b.agent.id] });
    const list = await app.request('/settings/teams', { domain: a.domain, cookie: a.ownerCookie });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('Bravo');

    // The model functions refuse too, whatever a route would forget.
    expect(await getTeam({ accountId: a.account.id, id: teamB.id })).toBeUndefined();
    expect(await updateTeam({ accountId: a.account.id, actorId: a.owner.id, id: teamB.id, name: 'X1', memberIds: [a.agent.id] })).toBeUndefined();
    expect(await deleteTeam({ accountId: a.account.id, actorId: a.owner.id, id: teamB.id })).toBe(false);
    expect((await listTeams({ accountId: a.account.id })).rows.map((t) => t.id)).not.toContain(teamB.id);
    expect(await getTeam({ accountId: b.account.id, id: teamB.id })).toMatchObject({ name: 'Bravo' });
  });

  it("cannot add B's users as members of A's team", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const res = await app.request('/settings/teams/new', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'save', name: 'Mixed', description: '', assigneeIds: [String(a.agent.id), String(b.agent.id)] },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain(TEAM_FOREIGN_MEMBER_MESSAGE);
    expect((await listTeams({ accountId: a.account.id })).total).toBe(0);

    await expect(createTeam({ accountId: a.account.id, actorId: a.owner.id, name: 'Foreign', memberIds: [b.owner.id] })).rejects.toBeInstanceOf(TeamInputError);
    const mine = await createTeam({ accountId: a.account.id, actorId: a.owner.id, name: 'Mine', memberIds: [a.agent.id] });
    await expect(updateTeam({ accountId: a.account.id, actorId: a.owner.id, id: mine.id, name: 'Mine', memberIds: [a.agent.id, b.agent.id] })).rejects.toThrow(
      TEAM_FOREIGN_MEMBER_MESSAGE,
    );
    expect((await getTeam({ accountId: a.account.id, id: mine.id }))?.memberIds).toEqual([a.agent.id]);
    const links = await getDb().select().from(schema.teamMembers).where(eq(schema.teamMembers.teamId, mine.id));
    expect(links).toEqual([{ teamId: mine.id, userId: a.agent.id }]);
  });
});

describe('tenancy of roles', () => {
  it("account A cannot read, edit or delete B's role, by URL or by form", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const roleB = await createRole({ accountId: b.account.id, actorId: b.owner.id, name: 'Bravo role', description: 'B only', permissions: ['manage_tags'] });

    const read = await app.request(`/settings/roles/${roleB.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(read.status).toBe(404);
    expect(read.text).not.toContain('Bravo role');
    const edit = await app.request(`/settings/roles/${roleB.id}`, {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: allRolePermissions({ role: 'Hijacked', description: '', permissions: ['manage_sla'] }),
    });
    expect(edit.status).toBe(404);
    const del = await app.request(`/settings/roles/${roleB.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(404);
    const list = await app.request('/settings/roles', { domain: a.domain, cookie: a.ownerCookie });
    expect(list.text).not.toContain('Bravo role');

    expect(await getRole({ accountId: b.account.id, id: roleB.id })).toMatchObject({ name: 'Bravo role', description: 'B only', permissions: ['manage_tags'] });
    expect(await getRole({ accountId: a.account.id, id: roleB.id })).toBeUndefined();
    expect(await updateRole({ accountId: a.account.id, actorId: a.owner.id, id: roleB.id, name: 'X', permissions: ['manage_sla'] })).toBeUndefined();
    expect(await deleteRole({ accountId: a.account.id, actorId: a.owner.id, id: roleB.id })).toBe(false);
    expect(await getRole({ accountId: b.account.id, id: roleB.id })).toBeDefined();
  });

  it('does not count users of another account against a role', async () => {
    const a = await setupAccount();
    const roles = await listRoles({ accountId: a.account.id });
    expect(roles.map((r) => [r.kind, r.userCount])).toEqual([
      ['owner', 1],
      ['admin', 0],
      ['agent', 1],
    ]);
  });
});

describe('only owners and admins change roles and teams', () => {
  it("answers an agent's POSTs with 403 and changes nothing; the pages still open, locked", async () => {
    const a = await setupAccount();
    const team = await createTeam({ accountId: a.account.id, actorId: a.owner.id, name: 'Alpha', memberIds: [a.agent.id] });
    const role = await createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Helper', permissions: ['manage_tags'] });
    const posts: [string, Record<string, string | string[]>][] = [
      ['/settings/teams/new', { intent: 'save', name: 'Sneaky', assigneeIds: [String(a.agent.id)] }],
      [`/settings/teams/${team.id}`, { intent: 'save', name: 'Renamed', assigneeIds: [String(a.agent.id)] }],
      [`/settings/teams/${team.id}`, { intent: 'delete' }],
      ['/settings/roles/new', { intent: 'save', role: 'Sneaky', permissions: ['manage_tags'] }],
      [`/settings/roles/${role.id}`, { intent: 'save', role: 'Renamed', permissions: ['manage_sla'] }],
      [`/settings/roles/${role.id}`, { intent: 'delete' }],
      ['/settings/roles/new', { intent: 'select-group', group: 'automation' }],
    ];
    for (const [path, form] of posts) {
      const res = await app.request(path, { domain: a.domain, cookie: a.agentCookie, form });
      expect(res.status, path).toBe(403);
    }
    expect(await getTeam({ accountId: a.account.id, id: team.id })).toMatchObject({ name: 'Alpha' });
    expect(await getRole({ accountId: a.account.id, id: role.id })).toMatchObject({ name: 'Helper', permissions: ['manage_tags'] });
    expect((await listTeams({ accountId: a.account.id })).total).toBe(1);
    expect(await eventsOf(a.account.id, 'team_updated')).toHaveLength(0);

    const page = await app.request(`/settings/roles/${role.id}`, { domain: a.domain, cookie: a.agentCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="locked-note"');
    const teamPage = await app.request(`/settings/teams/${team.id}`, { domain: a.domain, cookie: a.agentCookie });
    expect(teamPage.status).toBe(200);
    expect(teamPage.text).toContain('data-testid="locked-note"');
  });

  it('lets an admin change them', async () => {
    const a = await setupAccount();
    const admin = await createTestUser({ accountId: a.account.id, roleKind: 'admin' });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: admin.id });
    const res = await app.request('/settings/teams/new', { domain: a.domain, cookie, form: { intent: 'save', name: 'By admin', assigneeIds: [String(a.agent.id)] } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/settings/teams');
  });
});

describe('domain events', () => {
  it('writes team_created, team_updated and team_deleted with the change', async () => {
    const a = await setupAccount();
    const created = await app.request('/settings/teams/new', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'save', name: '  Support  ', description: 'First line', assigneeIds: [String(a.agent.id), String(a.owner.id)] },
    });
    expect(created.status).toBe(302);
    const { rows } = await listTeams({ accountId: a.account.id });
    expect(rows).toMatchObject([{ name: 'Support', description: 'First line', memberCount: 2 }]);
    const id = rows[0].id;
    const [c] = await eventsOf(a.account.id, 'team_created');
    expect(c).toMatchObject({ subjectType: 'team', subjectId: String(id), actorType: 'user', actorId: a.owner.id });
    expect((c.payload as { memberIds: number[] }).memberIds.sort()).toEqual([a.owner.id, a.agent.id].sort());

    const updated = await app.request(`/settings/teams/${id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', name: 'Support 2', description: '', assigneeIds: String(a.agent.id) } });
    expect(updated.status).toBe(302);
    expect(await getTeam({ accountId: a.account.id, id })).toMatchObject({ name: 'Support 2', description: null, memberIds: [a.agent.id] });
    const [u] = await eventsOf(a.account.id, 'team_updated');
    expect(u.payload).toMatchObject({ name: 'Support 2', previousName: 'Support', removed: [a.owner.id], added: [] });

    const deleted = await app.request(`/settings/teams/${id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(deleted.status).toBe(302);
    expect(await getTeam({ accountId: a.account.id, id })).toBeUndefined();
    expect(await eventsOf(a.account.id, 'team_deleted')).toMatchObject([{ subjectId: String(id), payload: { name: 'Support 2' } }]);
  });

  it('writes role_created, role_updated and role_deleted with the change', async () => {
    const a = await setupAccount();
    const created = await app.request('/settings/roles/new', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: allRolePermissions({ role: 'Supervisor', description: 'Looks after agents', permissions: ['manage_sla', 'manage_tags'] }),
    });
    expect(created.status).toBe(302);
    const role = (await listRoles({ accountId: a.account.id })).find((r) => r.name === 'Supervisor')!;
    // Stored in the catalogue's order whatever the order sent.
    expect(role.permissions).toEqual(['manage_sla', 'manage_tags']);
    expect(await eventsOf(a.account.id, 'role_created')).toMatchObject([{ subjectId: String(role.id), actorId: a.owner.id, payload: { name: 'Supervisor' } }]);

    const updated = await app.request(`/settings/roles/${role.id}`, {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: allRolePermissions({ role: 'Lead', description: '', permissions: ['manage_sla', 'manage_contacts'] }),
    });
    expect(updated.status).toBe(302);
    expect(await getRole({ accountId: a.account.id, id: role.id })).toMatchObject({ name: 'Lead', description: null, permissions: ['manage_sla', 'manage_contacts'] });
    expect(await eventsOf(a.account.id, 'role_updated')).toMatchObject([{ payload: { previousName: 'Supervisor', added: ['manage_contacts'], removed: ['manage_tags'] } }]);

    const deleted = await app.request(`/settings/roles/${role.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(deleted.status).toBe(302);
    expect(await getRole({ accountId: a.account.id, id: role.id })).toBeUndefined();
    expect(await eventsOf(a.account.id, 'role_deleted')).toMatchObject([{ subjectId: String(role.id), payload: { name: 'Lead' } }]);
  });
});

describe('role rules', () => {
  it('keeps the Owner role as it is and the default roles in place', async () => {
    const a = await setupAccount();
    const roles = await listRoles({ accountId: a.account.id });
    const owner = roles.find((r) => r.kind === 'owner')!;
    const admin = roles.find((r) => r.kind === 'admin')!;
    const agent = roles.find((r) => r.kind === 'agent')!;

    const editOwner = await app.request(`/settings/roles/${owner.id}`, { domain: a.domain, cookie: a.ownerCookie, form: allRolePermissions({ role: 'Boss', permissions: ['manage_tags'] }) });
    expect(editOwner.status).toBe(400);
    expect(editOwner.text).toContain(OWNER_ROLE_LOCKED_MESSAGE);
    for (const r of [owner, admin, agent]) {
      const del = await app.request(`/settings/roles/${r.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
      expect(del.status).toBe(400);
      expect(del.text).toContain(DEFAULT_ROLE_DELETE_MESSAGE);
    }
    expect((await getRole({ accountId: a.account.id, id: owner.id }))?.name).toBe('Owner');

    // Admin and Agent can be renamed and given other permissions.
    const editAgent = await app.request(`/settings/roles/${agent.id}`, {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: allRolePermissions({ role: 'Support Agent', description: 'Answers', permissions: ['manage_conversation'] }),
    });
    expect(editAgent.status).toBe(302);
    expect(await getRole({ accountId: a.account.id, id: agent.id })).toMatchObject({ name: 'Support Agent', kind: 'agent', permissions: ['manage_conversation'] });
    expect((await listRoles({ accountId: a.account.id })).length).toBe(3);
  });

  it('refuses to delete a custom role that users still have', async () => {
    const a = await setupAccount();
    const role = await createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Busy', permissions: ['manage_tags'] });
    await createTestUser({ accountId: a.account.id, roleId: role.id });
    const del = await app.request(`/settings/roles/${role.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(400);
    expect(del.text).toContain(ROLE_IN_USE_MESSAGE);
    expect(await getRole({ accountId: a.account.id, id: role.id })).toBeDefined();
    expect(await eventsOf(a.account.id, 'role_deleted')).toHaveLength(0);
  });

  it('keeps role and team names unique per account, whatever the case', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    await createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Triage', permissions: ['manage_tags'] });
    const dupRole = await app.request('/settings/roles/new', { domain: a.domain, cookie: a.ownerCookie, form: allRolePermissions({ role: 'TRIAGE', permissions: ['manage_tags'] }) });
    expect(dupRole.status).toBe(400);
    expect(dupRole.text).toContain(ROLE_NAME_TAKEN_MESSAGE);
    const dupDefault = await app.request('/settings/roles/new', { domain: a.domain, cookie: a.ownerCookie, form: allRolePermissions({ role: 'admin', permissions: ['manage_tags'] }) });
    expect(dupDefault.text).toContain(ROLE_NAME_TAKEN_MESSAGE);
    // Another account may use the same names.
    await expect(createRole({ accountId: b.account.id, actorId: b.owner.id, name: 'triage', permissions: ['manage_tags'] })).resolves.toMatchObject({ name: 'triage' });

    await createTeam({ accountId: a.account.id, actorId: a.owner.id, name: 'Night', memberIds: [a.agent.id] });
    const dupTeam = await app.request('/settings/teams/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', name: 'night', assigneeIds: [String(a.agent.id)] } });
    expect(dupTeam.status).toBe(400);
    expect(dupTeam.text).toContain(TEAM_NAME_TAKEN_MESSAGE);
    await expect(createTeam({ accountId: b.account.id, actorId: b.owner.id, name: 'NIGHT', memberIds: [b.agent.id] })).resolves.toMatchObject({ name: 'NIGHT' });
  });

  it('refuses permissions that do not exist', async () => {
    const a = await setupAccount();
    const res = await app.request('/settings/roles/new', { domain: a.domain, cookie: a.ownerCookie, form: allRolePermissions({ role: 'Odd', permissions: ['manage_tags', 'drop_tables'] }) });
    expect(res.status).toBe(400);
    expect((await listRoles({ accountId: a.account.id })).map((r) => r.name)).not.toContain('Odd');
    await expect(createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Odd', permissions: ['drop_tables'] })).rejects.toThrow('Unknown permission');
    await expect(createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Empty', permissions: [] })).rejects.toThrow('Select at least one permission');
  });
});

describe('the role form without JavaScript', () => {
  it('selects and clears a group on the server, keeping what was typed and saving nothing', async () => {
    const a = await setupAccount();
    const res = await app.request('/settings/roles/new', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'select-group', group: 'automation', role: 'Typed name', description: 'Typed description', permissions: ['manage_tags'] },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('value="Typed name"');
    expect(res.text).toContain('Typed description');
    for (const p of ['manage_business_hours', 'manage_routings', 'manage_sla', 'manage_workflow_rules', 'manage_tags']) {
      expect(isChecked(res.text, p), p).toBe(true);
    }
    expect(isChecked(res.text, 'manage_campaigns')).toBe(false);

    // The group may also come in the query string, as the buttons send it.
    const cleared = await app.request('/settings/roles/new?group=automation', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'clear-group', role: 'Typed name', permissions: ['manage_sla', 'manage_tags'] },
    });
    expect(cleared.status).toBe(200);
    expect(isChecked(cleared.text, 'manage_sla')).toBe(false);
    expect(isChecked(cleared.text, 'manage_tags')).toBe(true);
    expect((await listRoles({ accountId: a.account.id })).length).toBe(3);

    const badGroup = await app.request('/settings/roles/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'select-group', group: 'nope' } });
    expect(badGroup.status).toBe(400);
    const unknown = await app.request('/settings/roles/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'explode' } });
    expect(unknown.status).toBe(400);
  });
});

describe('bad addresses and plans', () => {
  it('answers 404 for ids that cannot exist', async () => {
    const a = await setupAccount();
    for (const path of ['/settings/teams/abc', '/settings/teams/99999999999', '/settings/teams/0', '/settings/roles/1e3', '/settings/roles/424242']) {
      const res = await app.request(path, { domain: a.domain, cookie: a.ownerCookie });
      expect(res.status, path).toBe(404);
    }
  });

  it('refuses team pages and posts without the teams feature of the plan', async () => {
    const a = await setupAccount();
    await setAccountPlan({ domain: a.domain, planKey: 'starter' });
    const list = await app.request('/settings/teams', { domain: a.domain, cookie: a.ownerCookie });
    expect(list.status).toBe(403);
    expect(list.text).toContain(FEATURE_DENIED_MESSAGE);
    const post = await app.request('/settings/teams/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', name: 'Nope', assigneeIds: [String(a.agent.id)] } });
    expect(post.status).toBe(403);
    expect((await listTeams({ accountId: a.account.id })).total).toBe(0);
    // Roles are not behind a plan feature.
    expect((await app.request('/settings/roles', { domain: a.domain, cookie: a.ownerCookie })).status).toBe(200);
  });
});
