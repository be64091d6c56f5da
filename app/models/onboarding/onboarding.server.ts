import { and, count, eq, isNull, ne } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

/** The getting-started checklist, computed from what the account has actually done. */
export async function getOnboardingSteps(opts: { accountId: number }) {
  const db = getDb();
  const [[users], [teams], [customRoles], [account]] = await Promise.all([
    db.select({ n: count() }).from(schema.users).where(eq(schema.users.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.teams).where(eq(schema.teams.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.roles).where(and(eq(schema.roles.accountId, opts.accountId), isNull(schema.roles.kind))),
    db.select({ industry: schema.accounts.industry }).from(schema.accounts).where(eq(schema.accounts.id, opts.accountId)),
  ]);
  const [others] = await db
    .select({ n: count() })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), ne(schema.users.status, 'pending')));
  return [
    { key: 'details', label: 'Tell us about your organisation', done: Boolean(account?.industry), to: '/settings/account-settings' },
    { key: 'invite', label: 'Invite a teammate', done: users.n > 1, to: '/settings/users' },
    { key: 'joined', label: 'Have a teammate join', done: others.n > 1, to: '/settings/users' },
    { key: 'team', label: 'Create a team', done: teams.n > 0, to: '/settings/teams' },
    { key: 'role', label: 'Create a custom role', done: customRoles.n > 0, to: '/settings/roles' },
  ];
}

export async function getAccountSummary(opts: { accountId: number }) {
  const db = getDb();
  const [[users], [teams], [roles]] = await Promise.all([
    db.select({ n: count() }).from(schema.users).where(eq(schema.users.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.teams).where(eq(schema.teams.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.roles).where(eq(schema.roles.accountId, opts.accountId)),
  ]);
  return { users: users.n, teams: teams.n, roles: roles.n };
}
