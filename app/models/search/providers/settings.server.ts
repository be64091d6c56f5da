import { and, count, eq, ilike, or, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../../db/client';
import { likePattern, type SearchProvider } from '../provider.server';

/** The account's users and teams by name (small tables: a plain ILIKE). */
function userMatch(accountId: number, q: string) {
  const p = likePattern(q);
  return and(eq(schema.users.accountId, accountId), or(ilike(sql`${schema.users.firstName} || ' ' || ${schema.users.lastName}`, p), ilike(schema.users.email, p)));
}

export const usersSearch: SearchProvider = {
  group: 'Users',
  async search({ accountId, q, limit, offset }) {
    const u = schema.users;
    const rows = await getDb()
      .select({ id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email })
      .from(u)
      .where(userMatch(accountId, q))
      .orderBy(u.firstName, u.lastName, u.id)
      .limit(limit)
      .offset(offset);
    return rows.map((r) => ({ id: r.id, title: `${r.firstName} ${r.lastName}`.trim() || r.email, subtitle: r.email, to: `/settings/users/${r.id}` }));
  },
  async count({ accountId, q }) {
    const [row] = await getDb().select({ n: count() }).from(schema.users).where(userMatch(accountId, q));
    return row.n;
  },
};

function teamMatch(accountId: number, q: string) {
  return and(eq(schema.teams.accountId, accountId), ilike(schema.teams.name, likePattern(q)));
}

export const teamsSearch: SearchProvider = {
  group: 'Teams',
  async search({ accountId, q, limit, offset }) {
    const t = schema.teams;
    const rows = await getDb()
      .select({ id: t.id, name: t.name, description: t.description })
      .from(t)
      .where(teamMatch(accountId, q))
      .orderBy(t.name, t.id)
      .limit(limit)
      .offset(offset);
    return rows.map((r) => ({ id: r.id, title: r.name, subtitle: r.description ?? undefined, to: `/settings/teams/${r.id}` }));
  },
  async count({ accountId, q }) {
    const [row] = await getDb().select({ n: count() }).from(schema.teams).where(teamMatch(accountId, q));
    return row.n;
  },
};
