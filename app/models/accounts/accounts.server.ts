import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import type { AccountSettings, PlanFeatures, SubscriptionStatus } from '../../../db/schema/accounts';
import { emitEvent } from '../events/events.server';
import { FREE_PLAN_KEY, hasFeature, PLAN_CATALOGUE, TRIAL_DAYS, type FeatureKey } from '../plans/catalogue';
import { isSubscriptionLapsed, isTrialExpired } from '../shell/trial';
import { getConfig } from '../../utils/env.server';
import { ALL_PERMISSIONS, AGENT_PERMISSIONS } from '../roles/permissions';
import { hashPassword } from '../../utils/password.server';
import { RESERVED_DOMAINS } from './schemas';

export type Account = typeof schema.accounts.$inferSelect;

export async function findAccountByDomain(domain: string) {
  const [row] = await getDb()
    .select()
    .from(schema.accounts)
    .where(sql`lower(${schema.accounts.domain}) = ${domain.toLowerCase()}`);
  return row;
}

/** Reserved names and taken domains get the same answer, so that the form does not reveal which accounts exist beyond what sign-in does. */
export async function isDomainAvailable(domain: string) {
  if (RESERVED_DOMAINS.includes(domain.toLowerCase())) return false;
  return !(await findAccountByDomain(domain));
}

/** Inserts the catalogue's plans that are missing; never overwrites an operator's edits. */
export async function ensurePlans(db: DbOrTx = getDb()) {
  for (const plan of PLAN_CATALOGUE) {
    await db.insert(schema.plans).values(plan).onConflictDoNothing({ target: schema.plans.key });
  }
}

export async function findPlanByKey(key: string, db: DbOrTx = getDb()) {
  const [plan] = await db.select().from(schema.plans).where(eq(schema.plans.key, key));
  return plan;
}

export class DomainTakenError extends Error {}

/**
 * Creates an account on the trial plan with its three default roles and its owner (pending until the
 * email is confirmed), and records `account_created`.
 */
export async function createAccountWithOwner(input: { domain: string; firstName: string; lastName: string; email: string; password: string; now?: Date }) {
  const db = getDb();
  const passwordHash = await hashPassword(input.password);
  const now = input.now ?? new Date();
  if (!(await isDomainAvailable(input.domain))) throw new DomainTakenError();
  await ensurePlans(db);
  try {
    return await db.transaction(async (tx) => {
      const plan = await findPlanByKey('trial', tx);
      const [account] = await tx
        .insert(schema.accounts)
        .values({
          domain: input.domain.toLowerCase(),
          name: input.domain,
          planId: plan.id,
          subscriptionStatus: 'trialing',
          // The trial plan's length, which the operator sets with `parley plan price trial --trial-days N`.
          trialEndsAt: new Date(now.getTime() + (plan.trialDays ?? TRIAL_DAYS) * 86_400_000),
        })
        .returning();
      const roleRows = await tx
        .insert(schema.roles)
        .values([
          {
            accountId: account.id,
            name: 'Owner',
            description: 'Owns the account: every permission, billing and roles.',
            kind: 'owner',
            permissions: ALL_PERMISSIONS,
          },
          {
            accountId: account.id,
            name: 'Admin',
            description: 'Manages the organisation, channels and automations.',
            kind: 'admin',
            permissions: ALL_PERMISSIONS,
          },
          { accountId: account.id, name: 'Agent', description: 'Works conversations and contacts.', kind: 'agent', permissions: AGENT_PERMISSIONS },
        ])
        .returning();
      const ownerRole = roleRows.find((r) => r.kind === 'owner')!;
      const [owner] = await tx
        .insert(schema.users)
        .values({
          accountId: account.id,
          roleId: ownerRole.id,
          email: input.email.toLowerCase(),
          firstName: input.firstName,
          lastName: input.lastName,
          passwordHash,
          status: 'pending',
        })
        .returning();
      await emitEvent(tx, {
        accountId: account.id,
        type: 'account_created',
        subjectType: 'account',
        subjectId: account.id,
        payload: { domain: account.domain, ownerId: owner.id, plan: plan.key },
        actor: { type: 'user', id: owner.id },
      });
      return { account, owner };
    });
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === '23505') throw new DomainTakenError();
    throw err;
  }
}

export async function saveExtraDetails(opts: { accountId: number; userId: number; organisationName: string; companySize: string; industry: string }) {
  await getDb().transaction(async (tx) => {
    await tx
      .update(schema.accounts)
      .set({ name: opts.organisationName, companySize: opts.companySize, industry: opts.industry })
      .where(eq(schema.accounts.id, opts.accountId));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'account_updated',
      subjectType: 'account',
      subjectId: opts.accountId,
      payload: { changed: ['name', 'companySize', 'industry'] },
      actor: { type: 'user', id: opts.userId },
    });
  });
}

export async function updateAccountSettings(opts: { accountId: number; userId: number; name: string; settings: AccountSettings }) {
  await getDb().transaction(async (tx) => {
    const [current] = await tx.select().from(schema.accounts).where(eq(schema.accounts.id, opts.accountId));
    await tx
      .update(schema.accounts)
      .set({ name: opts.name, settings: { ...current.settings, ...opts.settings } })
      .where(eq(schema.accounts.id, opts.accountId));
    // The audit log shows a settings change as before and after values (ADR 070).
    const before = { name: current.name, ...current.settings };
    const after = { name: opts.name, ...current.settings, ...opts.settings };
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'account_updated',
      subjectType: 'account',
      subjectId: opts.accountId,
      payload: { changed: ['name', 'settings'], before, after },
      actor: { type: 'user', id: opts.userId },
    });
  });
}

/**
 * The plan whose features an account has now: its own, or the free plan once a trial has run out with billing
 * on (ADR 036). Without billing nothing expires.
 */
export async function effectivePlan<P extends { key: string; name: string; features: PlanFeatures }>(
  account: { subscriptionStatus: string; trialEndsAt: Date | null; pastDueSince: Date | null },
  plan: P,
  db: DbOrTx = getDb(),
): Promise<Pick<P, 'key' | 'name' | 'features'>> {
  const { billing, billingGraceDays } = getConfig();
  if (!isTrialExpired(account, { billing }) && !isSubscriptionLapsed(account, { billing, graceDays: billingGraceDays })) return plan;
  await ensurePlans(db);
  const free = await findPlanByKey(FREE_PLAN_KEY, db);
  return { key: free.key, name: free.name, features: free.features };
}

/** Whether the account's plan has a feature — for work done without a request (the engine). */
export async function accountHasFeature(opts: { accountId: number; key: FeatureKey }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select({ plan: schema.plans, subscriptionStatus: schema.accounts.subscriptionStatus, trialEndsAt: schema.accounts.trialEndsAt, pastDueSince: schema.accounts.pastDueSince })
    .from(schema.accounts)
    .innerJoin(schema.plans, eq(schema.plans.id, schema.accounts.planId))
    .where(eq(schema.accounts.id, opts.accountId));
  if (!row) return false;
  return hasFeature((await effectivePlan(row, row.plan, db)).features, opts.key);
}

/** Used by the `parley plan` command: switches an account's plan (and optionally its subscription status). */
export async function setAccountPlan(opts: { domain: string; planKey: string; status?: SubscriptionStatus; trialEndsAt?: Date }) {
  const db = getDb();
  await ensurePlans(db);
  const account = await findAccountByDomain(opts.domain);
  if (!account) throw new Error(`No account with domain "${opts.domain}"`);
  const plan = await findPlanByKey(opts.planKey);
  if (!plan) throw new Error(`No plan "${opts.planKey}". Plans: ${PLAN_CATALOGUE.map((p) => p.key).join(', ')}`);
  await db.transaction(async (tx) => {
    await tx
      .update(schema.accounts)
      .set({
        planId: plan.id,
        ...(opts.status ? { subscriptionStatus: opts.status } : {}),
        ...(opts.trialEndsAt ? { trialEndsAt: opts.trialEndsAt } : {}),
      })
      .where(and(eq(schema.accounts.id, account.id)));
    await emitEvent(tx, {
      accountId: account.id,
      type: 'plan_changed',
      subjectType: 'account',
      subjectId: account.id,
      payload: { from: account.planId, to: plan.id, plan: plan.key },
    });
  });
  return { account, plan };
}

export async function listAccountsOfEmail(email: string) {
  return getDb()
    .select({ domain: schema.accounts.domain, name: schema.accounts.name })
    .from(schema.users)
    .innerJoin(schema.accounts, eq(schema.accounts.id, schema.users.accountId))
    .where(sql`lower(${schema.users.email}) = ${email.toLowerCase()}`);
}

/** Used by `parley plan list`: every plan with the number of accounts on it. */
export async function listPlans() {
  const db = getDb();
  await ensurePlans(db);
  return db
    .select({ key: schema.plans.key, name: schema.plans.name, features: schema.plans.features, accounts: sql<number>`count(${schema.accounts.id})::int` })
    .from(schema.plans)
    .leftJoin(schema.accounts, eq(schema.accounts.planId, schema.plans.id))
    .groupBy(schema.plans.id)
    .orderBy(schema.plans.id);
}

/** Used by `parley account list`: every account of the installation (an operator's view, not a tenant's). */
export async function listAccounts() {
  return getDb()
    .select({
      domain: schema.accounts.domain,
      name: schema.accounts.name,
      plan: schema.plans.key,
      status: schema.accounts.subscriptionStatus,
      trialEndsAt: schema.accounts.trialEndsAt,
      users: sql<number>`(select count(*)::int from ${schema.users} where ${schema.users.accountId} = ${schema.accounts.id})`,
      createdAt: schema.accounts.createdAt,
    })
    .from(schema.accounts)
    .innerJoin(schema.plans, eq(schema.plans.id, schema.accounts.planId))
    .orderBy(schema.accounts.domain);
}

/** Account security (ADR 148): whether two-factor sign-in is required, and after how long idle sessions end. */
/**
 * Changes some of an account's settings and records an `account_updated` event with their values before and after,
 * in one transaction (the row locked, so two saves of different settings never lose each other's change).
 */
export async function patchAccountSettings(opts: { accountId: number; userId: number; patch: Partial<AccountSettings>; defaults?: Partial<AccountSettings> }) {
  await getDb().transaction(async (tx) => {
    const [current] = await tx.select().from(schema.accounts).where(eq(schema.accounts.id, opts.accountId)).for('update');
    const keys = Object.keys(opts.patch) as (keyof AccountSettings)[];
    const before = Object.fromEntries(keys.map((k) => [k, current.settings[k] ?? opts.defaults?.[k] ?? null]));
    await tx
      .update(schema.accounts)
      .set({ settings: { ...current.settings, ...opts.patch } })
      .where(eq(schema.accounts.id, opts.accountId));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'account_updated',
      subjectType: 'account',
      subjectId: opts.accountId,
      payload: { changed: ['settings'], before, after: opts.patch },
      actor: { type: 'user', id: opts.userId },
    });
  });
}

export function updateAccountSecurity(opts: { accountId: number; userId: number; requireTwoFactor: boolean; idleSignOutMinutes: number }) {
  return patchAccountSettings({
    accountId: opts.accountId,
    userId: opts.userId,
    patch: { requireTwoFactor: opts.requireTwoFactor, idleSignOutMinutes: opts.idleSignOutMinutes },
    defaults: { requireTwoFactor: false, idleSignOutMinutes: 0 },
  });
}

/** Contact erasure (ADR 153): whether an erased contact's conversations stay anonymised or are deleted. */
export function updateAccountErasureMode(opts: { accountId: number; userId: number; mode: 'anonymise' | 'delete' }) {
  return patchAccountSettings({ accountId: opts.accountId, userId: opts.userId, patch: { erasureConversations: opts.mode }, defaults: { erasureConversations: 'anonymise' } });
}
