import { and, eq, ilike, or, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { searchConversations } from '../inbox/screens.server';

export type SearchHit = { id: string | number; title: string; subtitle?: string; to: string };
export type SearchProvider = {
  group: string;
  search: (opts: { accountId: number; q: string; limit: number }) => Promise<SearchHit[]>;
};

export const MIN_SEARCH_LENGTH = 3;

const providers: SearchProvider[] = [];

/** The one registration point: each area adds its group here (contacts, conversations, campaigns, articles, workflows...). */
export function registerSearchProvider(provider: SearchProvider) {
  if (!providers.some((p) => p.group === provider.group)) providers.push(provider);
}

function likePattern(q: string) {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

registerSearchProvider({
  group: 'Users',
  async search({ accountId, q, limit }) {
    const p = likePattern(q);
    const rows = await getDb()
      .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email })
      .from(schema.users)
      .where(
        and(
          eq(schema.users.accountId, accountId),
          or(ilike(sql`${schema.users.firstName} || ' ' || ${schema.users.lastName}`, p), ilike(schema.users.email, p)),
        ),
      )
      .limit(limit);
    return rows.map((r) => ({ id: r.id, title: `${r.firstName} ${r.lastName}`.trim(), subtitle: r.email, to: `/settings/users/${r.id}` }));
  },
});

registerSearchProvider({
  group: 'Teams',
  async search({ accountId, q, limit }) {
    const rows = await getDb()
      .select({ id: schema.teams.id, name: schema.teams.name, description: schema.teams.description })
      .from(schema.teams)
      .where(and(eq(schema.teams.accountId, accountId), ilike(schema.teams.name, likePattern(q))))
      .limit(limit);
    return rows.map((r) => ({ id: r.id, title: r.name, subtitle: r.description ?? undefined, to: `/settings/teams/${r.id}` }));
  },
});

registerSearchProvider({
  group: 'Conversations',
  async search({ accountId, q, limit }) {
    const rows = await searchConversations({ accountId, q, limit });
    return rows.map((r) => ({
      id: r.id,
      title: r.subject || `#${r.id}`,
      subtitle: `${r.contactFirstName ?? ''} ${r.contactLastName ?? ''}`.trim() || r.contactEmail || r.preview,
      to: `/inbox/${r.id}`,
    }));
  },
});

/** Runs every registered group; a query under three characters returns nothing. */
export async function globalSearch(opts: { accountId: number; q: string; limit?: number }) {
  const q = opts.q.trim();
  if (q.length < MIN_SEARCH_LENGTH) return [];
  const results = await Promise.all(providers.map(async (p) => ({ group: p.group, hits: await p.search({ accountId: opts.accountId, q, limit: opts.limit ?? 10 }) })));
  return results.filter((r) => r.hits.length > 0);
}
