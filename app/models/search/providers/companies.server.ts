import { sql } from 'drizzle-orm';
import { getDb } from '../../../../db/client';
import { likePattern, lowerTrigramThreshold, type SearchProvider } from '../provider.server';

/** Candidates before ranking (see contacts.server.ts: ranking must not run over every match of a broad word). */
const CANDIDATES = 1000;

/**
 * Companies by name, through the trigram GIN index on lower(name): a substring (`like '%q%'`, which that
 * index serves) or, word by word, a similar word (`<%`, for typos: "Contosso"). Substring matches first,
 * then by word similarity.
 */
function candidatesSql(accountId: number, q: string) {
  const lq = q.toLowerCase();
  const words = lq.split(/\s+/).filter(Boolean).slice(0, 5);
  const similar = sql.join(
    words.map((w) => sql`${w} <% lower(name)`),
    sql` and `,
  );
  return sql`candidates as (
    select id from companies where account_id = ${accountId} and (lower(name) like ${likePattern(lq)} or (${similar})) limit ${CANDIDATES}
  )`;
}

export const companiesSearch: SearchProvider = {
  group: 'Companies',
  async search({ accountId, q, limit, offset }) {
    const lq = q.toLowerCase();
    const rows = await getDb().transaction(async (tx) => {
      await lowerTrigramThreshold(tx);
      return tx.execute<{ id: number; name: string; domain: string | null }>(sql`with ${candidatesSql(accountId, q)}
        select id, name, domain from companies
        where account_id = ${accountId} and id in (select id from candidates)
        order by lower(name) like ${likePattern(lq)} desc, word_similarity(${lq}, lower(name)) desc, id
        limit ${limit} offset ${offset}`);
    });
    return rows.map((r) => ({ id: r.id, title: r.name, subtitle: r.domain ?? undefined, to: `/customers/companies/${r.id}` }));
  },
  async count({ accountId, q, cap }) {
    const [row] = await getDb().transaction(async (tx) => {
      await lowerTrigramThreshold(tx);
      return tx.execute<{ n: number }>(sql`with ${candidatesSql(accountId, q)} select least(${cap}, count(*))::int as n from candidates`);
    });
    return row.n;
  },
};
