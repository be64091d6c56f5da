import { sql } from 'drizzle-orm';
import { getDb } from '../../../../db/client';
import { lowerTrigramThreshold, prefixTsQuery, type SearchProvider } from '../provider.server';

/**
 * How many candidates each way of matching contributes before ranking. Ranking computes a similarity per row,
 * so it must not run over every "gmail" of a million contacts; beyond this many hits the query is too broad
 * for the order of the rest to matter (and the full results page pages through at most 1,000 anyway).
 */
const CANDIDATES = 1000;

/**
 * People, found two ways, each served by GIN indexes, then ranked:
 * 1. precise: the stored `search` tsvector (names, email and its parts, phone) with a prefix query, so whole
 *    or started words match ("Johan", "acme-widg", "smith1234");
 * 2. fuzzy, only when the precise way found fewer than CANDIDATES: trigram word similarity (`<%`), for typos
 *    ("jonh") and fragments inside words ("stonehaugh"). On the name word by word — two typos in "jonh smiht"
 *    leave the whole phrase too far from "john smith" (0.36) while each word stays close (0.4 and 0.5) — and,
 *    for a query of one word (an email has no spaces), on the email.
 * The fuzzy scan sits under a one-time filter on the precise count: when the precise way found plenty,
 * PostgreSQL does not run it at all. The expressions are written exactly as the indexes of
 * db/schema/contacts.ts declare them, or the planner would not use them.
 * Ranking: precise matches first, then by word similarity to the name or the email (the better of the two).
 */
function candidatesSql(accountId: number, q: string) {
  const tsq = prefixTsQuery(q);
  const lq = q.toLowerCase();
  const words = lq.split(/\s+/).filter(Boolean).slice(0, 5);
  const nameMatch = sql.join(
    words.map((w) => sql`${w} <% lower(first_name || ' ' || last_name)`),
    sql` and `,
  );
  const precise = tsq
    ? sql`select id from contacts where account_id = ${accountId} and search @@ to_tsquery('simple', ${tsq}) limit ${CANDIDATES}`
    : sql`select null::int as id where false`;
  return sql`precise as (${precise}),
    fuzzy as (
      select id from contacts
      where account_id = ${accountId} and ((${nameMatch})${words.length === 1 ? sql` or ${lq} <% lower(coalesce(email, ''))` : sql``})
        and (select count(*) from precise) < ${CANDIDATES}
        and id not in (select id from precise)
      limit ${CANDIDATES}
    )`;
}

function searchSql(opts: { accountId: number; q: string; limit: number; offset: number }) {
  const lq = opts.q.toLowerCase();
  return sql`with ${candidatesSql(opts.accountId, opts.q)}
    select c.id, c.first_name, c.last_name, c.email
    from contacts c
    where c.account_id = ${opts.accountId} and c.id in (select id from precise union all select id from fuzzy)
    order by c.id in (select id from precise) desc,
      greatest(word_similarity(${lq}, lower(c.first_name || ' ' || c.last_name)), word_similarity(${lq}, lower(coalesce(c.email, '')))) desc,
      c.id
    limit ${opts.limit} offset ${opts.offset}`;
}

export const contactsSearch: SearchProvider = {
  group: 'Contacts',
  async search(opts) {
    const rows = await getDb().transaction(async (tx) => {
      await lowerTrigramThreshold(tx);
      return tx.execute<{ id: number; first_name: string; last_name: string; email: string | null }>(searchSql(opts));
    });
    return rows.map((r) => {
      const name = `${r.first_name} ${r.last_name}`.trim();
      return { id: r.id, title: name || r.email || `#${r.id}`, subtitle: name ? (r.email ?? undefined) : undefined, to: `/customers/${r.id}` };
    });
  },
  async count({ accountId, q, cap }) {
    const [row] = await getDb().transaction(async (tx) => {
      await lowerTrigramThreshold(tx);
      return tx.execute<{ n: number }>(
        sql`with ${candidatesSql(accountId, q)} select least(${cap}, (select count(*) from precise) + (select count(*) from fuzzy))::int as n`,
      );
    });
    return row.n;
  },
};

/** The plan of a contacts search (for bench/crm.ts BENCH_EXPLAIN). */
export async function explainContactSearch(opts: { accountId: number; q: string }) {
  const rows = await getDb().transaction(async (tx) => {
    await lowerTrigramThreshold(tx);
    return tx.execute<{ 'QUERY PLAN': string }>(sql`explain analyze ${searchSql({ ...opts, limit: 10, offset: 0 })}`);
  });
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}
