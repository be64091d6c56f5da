import { and, asc, count, eq, ilike, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { getDb, getSql, schema } from '../../../db/client';
import type { SubscriptionStatus } from '../../../db/schema/accounts';
import { findPlanByKey, listPlans, setAccountPlan } from '../accounts/accounts.server';
import { getFileStorage } from '../storage/files.server';
import { getLogger } from '../../utils/logger.server';
import { exportAccountNow } from './account-export.server';
import { recordOperatorAction, type OperatorActor } from './audit.server';

/**
 * The console's accounts (ADR 152): every account of the installation, for operators only. These functions are the
 * one place that reads across accounts on purpose; the routes that call them are guarded by requireOperator.
 */

export const ACCOUNTS_PAGE_SIZE = 25;

export class ConsoleInputError extends Error {}

const a = schema.accounts;

/** Rows of the list and the detail: counts read from what is already kept per account (no scan of big tables). */
const accountColumns = {
  id: a.id,
  domain: a.domain,
  name: a.name,
  planKey: schema.plans.key,
  planName: schema.plans.name,
  subscriptionStatus: a.subscriptionStatus,
  suspendedAt: a.suspendedAt,
  createdAt: a.createdAt,
  users: sql<number>`(select count(*)::int from ${schema.users} u where u.account_id = ${a.id})`,
  // The signed deltas of ADR 032 sum to the account's conversations without reading them.
  conversations: sql<number>`(select coalesce(sum(d.n), 0)::int from ${schema.conversationCountDeltas} d where d.account_id = ${a.id})`,
  // Stored files with a recorded size: message attachments (email, chat, forms) and knowledge-base images.
  storageBytes: sql<number>`((select coalesce(sum(f.size), 0) from ${schema.attachments} f where f.account_id = ${a.id})
    + (select coalesce(sum(k.size), 0) from ${schema.kbImages} k where k.account_id = ${a.id}))::float8`,
  // The newest domain event (an index probe on domain_events_account_idx): any change anyone made.
  lastActivityAt: sql<Date | null>`(select max(e.occurred_at) from ${schema.domainEvents} e where e.account_id = ${a.id})`.mapWith((v) => (v ? new Date(v) : null)),
};

export type ConsoleAccount = Awaited<ReturnType<typeof listConsoleAccounts>>['rows'][number];

/** A page of accounts, by domain; `q` finds a domain or name containing it; `status` keeps suspended or active ones. */
export async function listConsoleAccounts(opts: { q?: string; status?: 'suspended' | 'active'; page: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? ACCOUNTS_PAGE_SIZE;
  const q = opts.q?.trim().slice(0, 100);
  const pattern = q ? `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  const where = and(
    pattern ? or(ilike(a.domain, pattern), ilike(a.name, pattern)) : undefined,
    opts.status === 'suspended' ? isNotNull(a.suspendedAt) : opts.status === 'active' ? isNull(a.suspendedAt) : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    getDb()
      .select(accountColumns)
      .from(a)
      .innerJoin(schema.plans, eq(schema.plans.id, a.planId))
      .where(where)
      .orderBy(asc(a.domain))
      .limit(pageSize)
      .offset((opts.page - 1) * pageSize),
    getDb().select({ total: count() }).from(a).where(where),
  ]);
  return { rows, total, page: opts.page, pageSize };
}

export async function getConsoleAccount(accountId: number) {
  const [row] = await getDb().select(accountColumns).from(a).innerJoin(schema.plans, eq(schema.plans.id, a.planId)).where(eq(a.id, accountId));
  return row;
}

export async function consolePlans() {
  return (await listPlans()).map((p) => ({ key: p.key, name: p.name }));
}

type ActionOpts = { accountId: number; actor: OperatorActor; ip?: string | null };

/**
 * Suspends an account: its users see the suspended page, its channels refuse new work with a temporary error
 * (nothing is stored, senders retry), its sessions stay (resuming lets them in again). Idempotent: suspending a
 * suspended account changes nothing and writes no entry. Returns whether it changed.
 */
export async function suspendAccount(opts: ActionOpts) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(a)
      .set({ suspendedAt: new Date() })
      .where(and(eq(a.id, opts.accountId), isNull(a.suspendedAt)))
      .returning({ id: a.id, domain: a.domain });
    if (!row) return false;
    await recordOperatorAction({ actor: opts.actor, action: 'account.suspend', account: row, ip: opts.ip }, tx);
    return true;
  });
}

/** Resumes a suspended account: everything works again; senders that were refused deliver at their next try. */
export async function resumeAccount(opts: ActionOpts) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(a)
      .set({ suspendedAt: null })
      .where(and(eq(a.id, opts.accountId), isNotNull(a.suspendedAt)))
      .returning({ id: a.id, domain: a.domain, suspendedAt: a.suspendedAt });
    if (!row) return false;
    await recordOperatorAction({ actor: opts.actor, action: 'account.resume', account: row, ip: opts.ip }, tx);
    return true;
  });
}

/** Moves the account to another plan through setAccountPlan (the one way, with its plan_changed event). */
export async function changeAccountPlan(opts: ActionOpts & { planKey: string; status?: SubscriptionStatus }) {
  const account = await getConsoleAccount(opts.accountId);
  if (!account) return null;
  if (!(await findPlanByKey(opts.planKey))) throw new ConsoleInputError('Choose one of the plans');
  if (account.planKey === opts.planKey && !opts.status) return { changed: false, account };
  const { plan } = await setAccountPlan({ domain: account.domain, planKey: opts.planKey, status: opts.status });
  await recordOperatorAction({
    actor: opts.actor,
    action: 'account.plan',
    account,
    details: { from: account.planKey, to: plan.key, ...(opts.status ? { status: opts.status } : {}) },
    ip: opts.ip,
  });
  return { changed: true, account, plan };
}

/** Tables with an account_id column that no foreign key ties to accounts (counters, logs): cleared by hand. */
async function looseAccountTables(): Promise<string[]> {
  const rows = await getSql()<{ table_name: string }[]>`
    select c.table_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and c.column_name = 'account_id'
      and c.table_name not in ('operator_audit_entries')
      and not exists (
        select 1 from pg_constraint k
        join pg_class r on r.oid = k.conrelid and r.relname = c.table_name
        join pg_namespace n on n.oid = r.relnamespace and n.nspname = 'public'
        join pg_attribute at on at.attrelid = k.conrelid and at.attnum = any (k.conkey) and at.attname = 'account_id'
        where k.contype = 'f' and k.confrelid = 'public.accounts'::regclass)
      and not exists (select 1 from pg_inherits i join pg_class p on p.oid = i.inhrelid where p.relname = c.table_name)
    order by c.table_name`;
  return rows.map((r) => r.table_name);
}

export class ConfirmationMismatchError extends ConsoleInputError {}

/**
 * Deletes an account after the operator typed its domain: first an export of its data (exportAccountNow, whose
 * archive path goes into the audit entry), then every row of the account in one transaction (the accounts row, whose
 * foreign keys cascade, and the tables without one), then its stored files. An export that fails stops the delete.
 */
export async function deleteAccount(opts: ActionOpts & { confirmDomain: string }) {
  const account = await getConsoleAccount(opts.accountId);
  if (!account) return null;
  if (opts.confirmDomain.trim().toLowerCase() !== account.domain.toLowerCase())
    throw new ConfirmationMismatchError(`Type the account's domain, ${account.domain}, to confirm`);
  const archive = await exportAccountNow({ accountId: account.id });
  const loose = await looseAccountTables();
  await getDb().transaction(async (tx) => {
    // Nothing new lands while the rows go: the row lock makes a concurrent writer's foreign key check wait.
    await tx.select({ id: a.id }).from(a).where(eq(a.id, account.id)).for('update');
    await tx.delete(a).where(eq(a.id, account.id));
    // After the cascade: its triggers append to some of these (the conversation count deltas of ADR 032).
    for (const table of loose) await tx.execute(sql`delete from ${sql.identifier(table)} where account_id = ${account.id}`);
    await recordOperatorAction(
      {
        actor: opts.actor,
        action: 'account.delete',
        account: { id: account.id, domain: account.domain },
        details: { name: account.name, plan: account.planKey, export: archive.path, exportBytes: archive.sizeBytes, users: account.users, conversations: account.conversations },
        ip: opts.ip,
      },
      tx,
    );
  });
  const files = await removeAccountFiles(account.id);
  return { account, archive, files };
}

/** Every stored file under the account's prefixes (keys.server.ts): `<id>/…` and the legacy `imports/<id>/…`. */
async function removeAccountFiles(accountId: number) {
  const storage = getFileStorage();
  let removed = 0;
  for (const prefix of [`${accountId}/`, `imports/${accountId}/`]) {
    const keys: string[] = [];
    for await (const f of storage.list(prefix)) keys.push(f.key);
    for (let i = 0; i < keys.length; i += 500) await storage.delete(keys.slice(i, i + 500));
    removed += keys.length;
  }
  if (removed) getLogger().info({ accountId, files: removed }, 'deleted account: stored files removed');
  return removed;
}
