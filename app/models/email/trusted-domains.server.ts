import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { TRUSTED_DOMAIN_TAKEN_MESSAGE, TRUSTED_DOMAIN_URL_MESSAGE, trustedDomainHost } from './schemas';

export type TrustedDomain = typeof schema.trustedDomains.$inferSelect;

const t = schema.trustedDomains;
export const TRUSTED_DOMAINS_PAGE_SIZE = 50;

/** Input a form schema cannot judge (the domain is already trusted): the route shows it under the field. */
export class TrustedDomainInputError extends Error {
  constructor(
    message: string,
    readonly field: 'domainName' | 'domainUrl',
  ) {
    super(message);
  }
}

export async function listTrustedDomains(opts: { accountId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? TRUSTED_DOMAINS_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const where = eq(t.accountId, opts.accountId);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(t).where(where).orderBy(sql`lower(${t.domainName})`, asc(t.id)).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(t).where(where),
  ]);
  return { rows, total, page, pageSize };
}

export async function getTrustedDomain(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)));
  return row;
}

function hostOf(domainUrl: string) {
  const host = trustedDomainHost(domainUrl);
  if (!host) throw new TrustedDomainInputError(TRUSTED_DOMAIN_URL_MESSAGE, 'domainUrl');
  return host;
}

async function checkHostFree(tx: Tx, accountId: number, host: string, exceptId?: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('trusted_domains'), ${accountId})`);
  const [clash] = await tx
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.accountId, accountId), eq(t.host, host), exceptId ? ne(t.id, exceptId) : undefined));
  if (clash) throw new TrustedDomainInputError(TRUSTED_DOMAIN_TAKEN_MESSAGE, 'domainUrl');
}

const actor = (actorId: number | null) => (actorId ? ({ type: 'user', id: actorId } as const) : ({ type: 'system' } as const));

export async function createTrustedDomain(opts: { accountId: number; actorId: number | null; domainName: string; domainUrl: string }) {
  const host = hostOf(opts.domainUrl);
  return getDb().transaction(async (tx) => {
    await checkHostFree(tx, opts.accountId, host);
    const [row] = await tx
      .insert(t)
      .values({ accountId: opts.accountId, domainName: opts.domainName.trim(), domainUrl: opts.domainUrl.trim(), host })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'trusted_domain_created',
      subjectType: 'trusted_domain',
      subjectId: row.id,
      payload: { domainName: row.domainName, host },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/** Returns the updated row, or undefined when the account has no such trusted domain. */
export async function updateTrustedDomain(opts: { accountId: number; actorId: number | null; id: number; domainName: string; domainUrl: string }) {
  const host = hostOf(opts.domainUrl);
  return getDb().transaction(async (tx) => {
    const before = await getTrustedDomain(opts, tx);
    if (!before) return undefined;
    await checkHostFree(tx, opts.accountId, host, before.id);
    const [row] = await tx
      .update(t)
      .set({ domainName: opts.domainName.trim(), domainUrl: opts.domainUrl.trim(), host })
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
      .returning();
    const changed = (['domainName', 'domainUrl'] as const).filter((k) => before[k] !== row[k]);
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'trusted_domain_updated',
      subjectType: 'trusted_domain',
      subjectId: row.id,
      payload: { changed },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

export async function deleteTrustedDomain(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'trusted_domain_deleted',
      subjectType: 'trusted_domain',
      subjectId: row.id,
      payload: { domainName: row.domainName, host: row.host },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/**
 * Whether a sender's address belongs to one of the account's trusted domains: the domain itself or any of
 * its subdomains (mail from billing.example.com is trusted with example.com).
 */
export async function isFromTrustedDomain(db: DbOrTx, opts: { accountId: number; address: string | null | undefined }) {
  const at = (opts.address ?? '').lastIndexOf('@');
  if (at < 0) return false;
  const domain = (opts.address ?? '').slice(at + 1).trim().toLowerCase().replace(/\.$/, '');
  if (!domain) return false;
  // Every suffix of the sender's domain: a.b.example.com → a.b.example.com, b.example.com, example.com, com.
  const labels = domain.split('.');
  const candidates = labels.map((_, i) => labels.slice(i).join('.'));
  const [row] = await db
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), inArray(t.host, candidates)))
    .limit(1);
  return Boolean(row);
}
