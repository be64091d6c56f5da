import { and, count, eq, ilike, inArray } from 'drizzle-orm';
import { getDb, schema } from '../../../../db/client';
import { KIND_LABELS } from '../../campaigns/constants';
import { likePattern, type SearchProvider } from '../provider.server';

/** Section 2 global search: the campaigns group (type message, email or sms), by name. */
function campaignMatch(accountId: number, q: string) {
  const c = schema.campaigns;
  return and(eq(c.accountId, accountId), inArray(c.kind, ['message', 'email', 'sms']), ilike(c.name, likePattern(q)));
}

export const campaignsSearch: SearchProvider = {
  group: 'Campaigns',
  async search({ accountId, q, limit, offset }) {
    const c = schema.campaigns;
    const rows = await getDb()
      .select({ id: c.id, name: c.name, kind: c.kind })
      .from(c)
      .where(campaignMatch(accountId, q))
      .orderBy(c.name, c.id)
      .limit(limit)
      .offset(offset);
    return rows.map((r) => ({ id: r.id, title: r.name, subtitle: KIND_LABELS[r.kind], to: `/campaigns/${r.kind}/${r.id}` }));
  },
  async count({ accountId, q }) {
    const [row] = await getDb().select({ n: count() }).from(schema.campaigns).where(campaignMatch(accountId, q));
    return row.n;
  },
};
