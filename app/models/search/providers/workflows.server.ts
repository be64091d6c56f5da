import { and, count, eq, ilike, or } from 'drizzle-orm';
import { getDb, schema } from '../../../../db/client';
import { likePattern, type SearchProvider } from '../provider.server';

/** Section 2 global search: the workflows group, by name and description (a small table: a plain ILIKE). */
function workflowMatch(accountId: number, q: string) {
  const r = schema.automationRules;
  const p = likePattern(q);
  return and(eq(r.accountId, accountId), eq(r.kind, 'workflow'), or(ilike(r.name, p), ilike(r.description, p)));
}

export const workflowsSearch: SearchProvider = {
  group: 'Workflows',
  async search({ accountId, q, limit, offset }) {
    const r = schema.automationRules;
    const rows = await getDb()
      .select({ id: r.id, name: r.name, description: r.description })
      .from(r)
      .where(workflowMatch(accountId, q))
      .orderBy(r.name, r.id)
      .limit(limit)
      .offset(offset);
    return rows.map((w) => ({ id: w.id, title: w.name, subtitle: w.description || undefined, to: `/workflows/builder/${w.id}` }));
  },
  async count({ accountId, q }) {
    const [row] = await getDb().select({ n: count() }).from(schema.automationRules).where(workflowMatch(accountId, q));
    return row.n;
  },
};
