import { count, desc, eq } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';

export type OperatorActor = { kind: 'operator'; id: number; email: string } | { kind: 'cli' };

export type { OperatorAction } from './audit-labels';
export { ACTION_LABELS } from './audit-labels';
import type { OperatorAction } from './audit-labels';

type Details = Record<string, string | number | boolean | null>;

/**
 * One entry of the installation's audit log (ADR 152): who, what, which account, when. Written in the same
 * transaction as the change when there is one (`db`), so that a change never goes unrecorded.
 */
export async function recordOperatorAction(
  opts: { actor: OperatorActor; action: OperatorAction; account?: { id: number; domain: string } | null; details?: Details; ip?: string | null },
  db: DbOrTx = getDb(),
) {
  await db.insert(schema.operatorAuditEntries).values({
    actor: opts.actor.kind === 'cli' ? 'command line' : opts.actor.email,
    operatorId: opts.actor.kind === 'operator' ? opts.actor.id : null,
    action: opts.action,
    accountId: opts.account?.id ?? null,
    accountDomain: opts.account?.domain ?? null,
    details: opts.details ?? {},
    ip: opts.ip ?? null,
  });
}

export const AUDIT_PAGE_SIZE = 50;

/** The log, newest first; one account's entries with `accountId`. */
export async function listOperatorAudit(opts: { page: number; accountId?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? AUDIT_PAGE_SIZE;
  const where = opts.accountId ? eq(schema.operatorAuditEntries.accountId, opts.accountId) : undefined;
  const [rows, [{ total }]] = await Promise.all([
    getDb()
      .select()
      .from(schema.operatorAuditEntries)
      .where(where)
      .orderBy(desc(schema.operatorAuditEntries.createdAt), desc(schema.operatorAuditEntries.id))
      .limit(pageSize)
      .offset((opts.page - 1) * pageSize),
    getDb().select({ total: count() }).from(schema.operatorAuditEntries).where(where),
  ]);
  return { rows, total, page: opts.page, pageSize };
}
