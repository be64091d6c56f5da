import { runScript } from '../helpers/process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import { getDb, schema } from '../../db/client';
import { findAccountByDomain } from '../../app/models/accounts/accounts.server';
import { verifyCredentials } from '../../app/models/auth/auth.server';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-seed-test-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** `npm run seed`, as its own process against this file's database. */
function seed() {
  return runScript('db/seed.ts', [], { ...process.env, DATABASE_URL: process.env.DATABASE_URL, PARLEY_DATA_DIR: dataDir });
}

async function snapshot(accountId: number) {
  const db = getDb();
  const count = async (table: typeof schema.users | typeof schema.roles | typeof schema.teams) =>
    (await db.select({ n: sql<number>`count(*)::int` }).from(table).where(eq(table.accountId, accountId)))[0].n;
  return { users: await count(schema.users), roles: await count(schema.roles), teams: await count(schema.teams) };
}

describe('npm run seed', () => {
  test('creates the demo account once; a second run changes nothing; everyone can sign in', { timeout: 60_000 }, async () => {
    const first = await seed();
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('The demo account is ready.');
    expect(first.stdout).toContain('Sign in at http://demo.localhost:3000/signin');
    expect(first.stdout).toContain('demo@parley.local');

    const account = await findAccountByDomain('demo');
    expect(account).toMatchObject({ domain: 'demo', name: 'Parley Demo' });
    const before = await snapshot(account.id);
    expect(before).toEqual({ users: 4, roles: 4, teams: 2 });

    const second = await seed();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('The demo account already exists (domain "demo"); nothing changed.');
    expect(second.stdout).toContain('Sign in at http://demo.localhost:3000/signin');
    expect(await snapshot(account.id)).toEqual(before);
    expect((await getDb().select().from(schema.accounts).where(eq(schema.accounts.domain, 'demo'))).length).toBe(1);

    // Every demo user is active, verified and signs in with the documented password.
    const roleOf: Record<string, string | null> = {};
    for (const email of ['demo@parley.local', 'admin@parley.local', 'sam@parley.local', 'riley@parley.local']) {
      const check = await verifyCredentials({ accountId: account.id, email, password: 'parley-demo' });
      expect(check.ok, email).toBe(true);
      if (!check.ok) continue;
      expect(check.user.status).toBe('active');
      expect(check.user.emailVerifiedAt).not.toBeNull();
      const [role] = await getDb().select().from(schema.roles).where(and(eq(schema.roles.id, check.user.roleId), eq(schema.roles.accountId, account.id)));
      roleOf[email] = role.kind;
    }
    expect(roleOf).toEqual({ 'demo@parley.local': 'owner', 'admin@parley.local': 'admin', 'sam@parley.local': 'agent', 'riley@parley.local': 'agent' });
    expect((await verifyCredentials({ accountId: account.id, email: 'demo@parley.local', password: 'wrong-password' })).ok).toBe(false);

    // The custom role and the two teams with their members.
    const [supervisor] = await getDb()
      .select()
      .from(schema.roles)
      .where(and(eq(schema.roles.accountId, account.id), eq(schema.roles.name, 'Supervisor')));
    expect(supervisor.kind).toBeNull();
    expect(supervisor.permissions).toContain('manage_conversation');
    const members = await getDb()
      .select({ team: schema.teams.name, email: schema.users.email })
      .from(schema.teamMembers)
      .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
      .innerJoin(schema.users, eq(schema.users.id, schema.teamMembers.userId))
      .where(eq(schema.teams.accountId, account.id));
    const byTeam = (name: string) => members.filter((m) => m.team === name).map((m) => m.email).sort();
    expect(byTeam('Support')).toEqual(['admin@parley.local', 'riley@parley.local', 'sam@parley.local']);
    expect(byTeam('Billing')).toEqual(['admin@parley.local', 'riley@parley.local']);

    // Built through the model functions: the same domain events as the screens write.
    const events = await getDb()
      .select({ type: schema.domainEvents.type })
      .from(schema.domainEvents)
      .where(eq(schema.domainEvents.accountId, account.id));
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['account_created', 'user_activated', 'user_invited', 'role_created', 'team_created']));
    expect(types.filter((t) => t === 'team_created')).toHaveLength(2);
  });
});
