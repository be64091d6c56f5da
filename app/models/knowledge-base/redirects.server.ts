import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

/** Redirect Rules (ADR 057): one knowledge base's path-to-path 301s, never a loop. */
const r = schema.kbRedirects;
type Scope = { accountId: number; knowledgeBaseId: number };

export type RedirectRule = typeof r.$inferSelect;

export async function listRedirects(scope: Scope) {
  return getDb()
    .select()
    .from(r)
    .where(and(eq(r.accountId, scope.accountId), eq(r.knowledgeBaseId, scope.knowledgeBaseId)))
    .orderBy(asc(r.source));
}

/**
 * The chain a new or edited rule would make, when it comes back to where it started (a loop, also through other
 * rules: /a → /b, /b → /c, then /c → /a). Null when the rules stay loop-free.
 */
export function findLoop(rules: { id?: number; source: string; destination: string }[], rule: { id?: number; source: string; destination: string }) {
  const next = new Map(rules.filter((x) => x.id === undefined || x.id !== rule.id).map((x) => [x.source, x.destination]));
  next.set(rule.source, rule.destination);
  const chain = [rule.source];
  let at = rule.destination;
  while (chain.length <= next.size + 1) {
    chain.push(at);
    if (at === rule.source) return chain;
    const to = next.get(at);
    if (!to) return null;
    at = to;
  }
  return chain;
}

export type SaveRedirectResult = { ok: true } | { ok: false; field: 'source' | 'destination'; message: string } | { ok: false; notFound: true };

/** Creates (id undefined) or edits a rule; refuses a duplicate source and any loop, with the chain in the message. */
export async function saveRedirect(opts: Scope & { id?: number; source: string; destination: string }): Promise<SaveRedirectResult> {
  return getDb().transaction(async (tx) => {
    // One writer per knowledge base at a time, so two saves cannot make a loop between them.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('kb_redirects'), ${opts.knowledgeBaseId})`);
    const rules = await tx
      .select()
      .from(r)
      .where(and(eq(r.accountId, opts.accountId), eq(r.knowledgeBaseId, opts.knowledgeBaseId)));
    if (opts.id !== undefined && !rules.some((x) => x.id === opts.id)) return { ok: false, notFound: true };
    if (rules.some((x) => x.source === opts.source && x.id !== opts.id)) return { ok: false, field: 'source', message: 'A rule for this source already exists' };
    const loop = findLoop(rules, opts);
    if (loop) return { ok: false, field: 'destination', message: `This rule would make a redirect loop: ${loop.join(' → ')}` };
    if (opts.id === undefined) {
      await tx.insert(r).values({ accountId: opts.accountId, knowledgeBaseId: opts.knowledgeBaseId, source: opts.source, destination: opts.destination });
    } else {
      await tx
        .update(r)
        .set({ source: opts.source, destination: opts.destination })
        .where(and(eq(r.accountId, opts.accountId), eq(r.knowledgeBaseId, opts.knowledgeBaseId), eq(r.id, opts.id)));
    }
    return { ok: true };
  });
}

export async function deleteRedirect(opts: Scope & { id: number }) {
  const rows = await getDb()
    .delete(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.knowledgeBaseId, opts.knowledgeBaseId), eq(r.id, opts.id)))
    .returning({ id: r.id });
  return rows.length > 0;
}

/** The destination of a public path, if a rule names it. */
export async function findRedirect(opts: Scope & { path: string }) {
  const [row] = await getDb()
    .select({ destination: r.destination })
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.knowledgeBaseId, opts.knowledgeBaseId), eq(r.source, opts.path), ne(r.destination, opts.path)));
  return row?.destination ?? null;
}
