import { sql } from 'drizzle-orm';
import type { Tx } from '../../../db/client';

/** One line of a search group: `title` is cut to 20 characters by the dropdown and the results page. */
export type SearchHit = { id: string | number; title: string; subtitle?: string; to: string };

export type SearchQuery = { accountId: number; q: string; limit: number; offset: number };

/**
 * What an area gives the global search: a group name and two account-scoped queries. `count` may stop
 * counting at `cap` (the full results page pages through at most that many hits).
 */
export type SearchProvider = {
  group: string;
  search: (opts: SearchQuery) => Promise<SearchHit[]>;
  count: (opts: { accountId: number; q: string; cap: number }) => Promise<number>;
};

/** A LIKE pattern matching `q` anywhere, with LIKE's wildcards escaped. */
export function likePattern(q: string) {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A prefix tsquery ('jon:* & smi:*') from the letters and digits of `q`, or null when there are none. Only
 * word characters reach it, so nothing the user types can break the tsquery syntax.
 */
export function prefixTsQuery(q: string) {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length ? words.map((w) => `${w}:*`).join(' & ') : null;
}

/**
 * pg_trgm's `<%` (word similarity) operator is what the trigram GIN indexes serve, and its threshold is the
 * setting pg_trgm.word_similarity_threshold (default 0.6). A misspelt word such as "jonh" shares only two of
 * its five trigrams with "john" (0.4), so searches lower it to 0.4 — for this transaction only (`is_local`),
 * so no other query on the pooled connection sees it. A `word_similarity(...) >= 0.4` filter would say the
 * same but cannot use the index.
 */
export const WORD_SIMILARITY_THRESHOLD = 0.4;
export async function lowerTrigramThreshold(tx: Tx) {
  await tx.execute(sql`select set_config('pg_trgm.word_similarity_threshold', ${String(WORD_SIMILARITY_THRESHOLD)}, true)`);
}
