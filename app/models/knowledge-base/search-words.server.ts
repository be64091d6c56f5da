import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';

type Scope = { accountId: number; knowledgeBaseId: number };

/** A word as the dictionary keeps it: letters only, 3 to 30 of them, lower-cased (the migration's backfill agrees). */
const WORD = '([[:alpha:]]{3,30})';

/** Adds the words of a published text to its knowledge base's dictionary (ADR 050 addendum); known words are kept. */
export async function addSearchWords(db: DbOrTx, scope: Scope, text: string) {
  await db.execute(sql`
    insert into kb_search_words (account_id, knowledge_base_id, word)
    select distinct ${scope.accountId}::int, ${scope.knowledgeBaseId}::int, m[1]
      from regexp_matches(lower(${text}), ${WORD}, 'g') m
    on conflict do nothing`);
}

/**
 * Each word of a search that the knowledge base does not know, replaced by its closest known word (pg_trgm
 * similarity of at least 0.3, over the dictionary's trigram index); known words and words without a close one stay.
 * Returns the corrected search, or null when nothing changed.
 */
export async function correctSearch(db: DbOrTx, scope: Scope, q: string): Promise<string | null> {
  const words = [...new Set((q.toLowerCase().match(/\p{L}{3,30}/gu) ?? []).slice(0, 8))];
  if (words.length === 0) return null;
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('pg_trgm.similarity_threshold', '0.3', true)`);
    return tx.execute<{ w: string; best: string | null }>(sql`
      select q.w, coalesce(
        (select d.word from kb_search_words d where d.knowledge_base_id = ${scope.knowledgeBaseId} and d.account_id = ${scope.accountId} and d.word = q.w),
        (select d.word from kb_search_words d
          where d.knowledge_base_id = ${scope.knowledgeBaseId} and d.account_id = ${scope.accountId} and d.word % q.w
          order by similarity(d.word, q.w) desc, d.word limit 1)) as best
      from unnest(${`{${words.map((w) => `"${w.replace(/["\\]/g, '')}"`).join(',')}}`}::text[]) as q(w)`);
  });
  const fixes = new Map(rows.filter((r) => r.best && r.best !== r.w).map((r) => [r.w, r.best as string]));
  if (fixes.size === 0) return null;
  return words.map((w) => fixes.get(w) ?? w).join(' ');
}

/**
 * Rebuilds a knowledge base's dictionary from the articles published now (after a restore or an import replaced
 * them): the same words the migration's backfill and addSearchWords take, in one statement.
 */
export async function rebuildSearchWords(db: DbOrTx, scope: Scope) {
  await db.execute(sql`delete from kb_search_words where account_id = ${scope.accountId} and knowledge_base_id = ${scope.knowledgeBaseId}`);
  await db.execute(sql`
    insert into kb_search_words (account_id, knowledge_base_id, word)
    select distinct a.account_id, a.knowledge_base_id, m[1]
      from kb_articles a,
           regexp_matches(lower(coalesce(a.published_title, '') || ' ' || coalesce(a.published_text, '')), ${WORD}, 'g') m
     where a.account_id = ${scope.accountId} and a.knowledge_base_id = ${scope.knowledgeBaseId} and a.status = 'published'
    on conflict do nothing`);
}
