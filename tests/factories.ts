import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../db/client';
import { createAccountWithOwner } from '../app/models/accounts/accounts.server';
import { hashPassword } from '../app/utils/password.server';
import type { PlanFeatures } from '../db/schema/accounts';

export const TEST_PASSWORD = 'correct-horse-battery';

export function uniqueDomain(prefix = 'acct') {
  return `${prefix}${crypto.randomBytes(4).toString('hex')}`.slice(0, 20);
}

/** An account with a verified, active owner who can sign in with TEST_PASSWORD. */
export async function createTestAccount(opts: { domain?: string; email?: string; firstName?: string } = {}) {
  const domain = opts.domain ?? uniqueDomain();
  const email = opts.email ?? `owner@${domain}.test`;
  const { account, owner } = await createAccountWithOwner({
    domain,
    firstName: opts.firstName ?? 'Olive',
    lastName: 'Owner',
    email,
    password: TEST_PASSWORD,
  });
  const [active] = await getDb().update(schema.users).set({ status: 'active', emailVerifiedAt: new Date() }).where(eq(schema.users.id, owner.id)).returning();
  return { account, owner: active, domain, email, password: TEST_PASSWORD };
}

/** An active user of the account with one of its default roles (or a given role id). */
export async function createTestUser(opts: { accountId: number; roleKind?: 'owner' | 'admin' | 'agent'; roleId?: number; email?: string; firstName?: string }) {
  const db = getDb();
  const roleId =
    opts.roleId ??
    (
      await db
        .select({ id: schema.roles.id })
        .from(schema.roles)
        .where(and(eq(schema.roles.accountId, opts.accountId), eq(schema.roles.kind, opts.roleKind ?? 'agent')))
    )[0].id;
  const email = opts.email ?? `user-${crypto.randomBytes(3).toString('hex')}@example.test`;
  const [user] = await db
    .insert(schema.users)
    .values({
      accountId: opts.accountId,
      roleId,
      email,
      firstName: opts.firstName ?? 'Ari',
      lastName: 'Agent',
      passwordHash: await hashPassword(TEST_PASSWORD),
      status: 'active',
      emailVerifiedAt: new Date(),
    })
    .returning();
  return user;
}

/** Puts the account on a plan of its own with exactly these features (plan locks and refusals). */
export async function givePlan(accountId: number, features: PlanFeatures) {
  const [plan] = await getDb()
    .insert(schema.plans)
    .values({ key: `test-${crypto.randomBytes(4).toString('hex')}`, name: 'Test plan', features })
    .returning();
  await getDb().update(schema.accounts).set({ planId: plan.id }).where(eq(schema.accounts.id, accountId));
  return plan;
}
