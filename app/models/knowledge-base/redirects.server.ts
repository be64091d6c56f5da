import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { FieldInputError, recordChange } from '../productivity/shared.server';
import { REDIRECT_LOOP_MESSAGE, REDIRECT_SAME_MESSAGE, REDIRECT_TAKEN_MESSAGE } from './constants';
import type { RedirectRuleInput } from './schemas';

type Scope = { accountId: number; knowledgeBaseId: number };
const r = schema.kbRedirectRules;
const idOf = (path: string) => Number(/^\d+/.exec(path)?.[0]);
/** How many rules a chain may pass through when checked on save; a longer chain is refused like a loop. */
const CHAIN_MAX = 20;

export async function listRedirectRules(scope: Scope) {
  return getDb()
    .select({ id: r.id, source: r.source, destination: r.destination, updatedAt: r.updatedAt })
    .from(r)
    .where(and(eq(r.accountId, scope.accountId), eq(r.knowledgeBaseId, scope.knowledgeBaseId)))
    .orderBy(asc(r.sourceId));
}

/** The rule for an article id of a public help centre, if any: where its address answers 301 to. */
export async function findRedirect(scope: Scope & { articleId: number }) {
  const [row] = await getDb()
    .select({ destination: r.destination })
    .from(r)
    .where(and(eq(r.accountId, scope.accountId), eq(r.knowledgeBaseId, scope.knowledgeBaseId), eq(r.sourceId, scope.articleId)));
  return row?.destination;
}

/**
 * Follows the rules from the destination: a chain that comes back to the source (or runs longer than CHAIN_MAX)
 * would send visitors round in circles, so the rule is refused. Read under the knowledge base's rules lock.
 */
async function checkNoLoop(tx: Tx, scope: Scope, sourceId: number, destinationId: number, ruleId?: number) {
  if (sourceId === destinationId) throw new FieldInputError(REDIRECT_SAME_MESSAGE, 'destination');
  const rows = await tx
    .select({ sourceId: r.sourceId, destinationId: r.destinationId })
    .from(r)
    .where(and(eq(r.accountId, scope.accountId), eq(r.knowledgeBaseId, scope.knowledgeBaseId), ruleId ? ne(r.id, ruleId) : undefined));
  const next = new Map(rows.map((row) => [row.sourceId, row.destinationId]));
  let at = destinationId;
  for (let step = 0; step < CHAIN_MAX; step++) {
    const to = next.get(at);
    if (to === undefined) return;
    if (to === sourceId) throw new FieldInputError(REDIRECT_LOOP_MESSAGE, 'destination');
    at = to;
  }
  throw new FieldInputError(REDIRECT_LOOP_MESSAGE, 'destination');
}

/** Creates or (with an id) updates a rule; refuses a second rule for the same source, and loops. */
export async function saveRedirectRule(opts: Scope & { actorId: number | null; input: RedirectRuleInput }) {
  const { id, source, destination } = opts.input;
  const scope = { accountId: opts.accountId, knowledgeBaseId: opts.knowledgeBaseId };
  return getDb().transaction(async (tx) => {
    // One writer of the knowledge base's rules at a time, so two saves cannot close a loop between them.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('kb_redirect_rules'), ${opts.knowledgeBaseId})`);
    const sourceId = idOf(source);
    const destinationId = idOf(destination);
    const [taken] = await tx
      .select({ id: r.id })
      .from(r)
      .where(and(eq(r.accountId, scope.accountId), eq(r.knowledgeBaseId, scope.knowledgeBaseId), eq(r.sourceId, sourceId)));
    if (taken && taken.id !== id) throw new FieldInputError(REDIRECT_TAKEN_MESSAGE, 'source');
    await checkNoLoop(tx, scope, sourceId, destinationId, id);
    const values = { source, sourceId, destination, destinationId, updatedAt: new Date() };
    const [row] = id
      ? await tx
          .update(r)
          .set(values)
          .where(and(eq(r.accountId, scope.accountId), eq(r.knowledgeBaseId, scope.knowledgeBaseId), eq(r.id, id)))
          .returning()
      : await tx
          .insert(r)
          .values({ ...scope, ...values })
          .returning();
    if (!row) return undefined;
    await recordChange(tx, {
      accountId: opts.accountId,
      actorId: opts.actorId,
      type: 'knowledge_base_updated',
      subjectType: 'knowledge_base',
      subjectId: opts.knowledgeBaseId,
      payload: { redirect: { source, destination } },
    });
    return row;
  });
}

export async function deleteRedirectRule(opts: Scope & { actorId: number | null; id: number }) {
  const [row] = await getDb()
    .delete(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.knowledgeBaseId, opts.knowledgeBaseId), eq(r.id, opts.id)))
    .returning({ id: r.id });
  return Boolean(row);
}
