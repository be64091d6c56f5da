import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { getDb, preparesText } from '../../db/client';

/**
 * ADR 136: drizzle's statements become named prepared statements of their connection from their second run, and a
 * text with inlined values (never repeated) stays unnamed. Read on one connection: inside a transaction.
 */
describe('prepared statements', () => {
  test('a repeated text is prepared on its connection, inside transactions too; a text run once is not', async () => {
    const tag = `t${process.pid}x${Date.now()}`;
    const repeated = (n: number) => sql`select ${n}::int as n, ${sql.raw(`'${tag}'`)} as tag`;
    const names = await getDb().transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await tx.execute(repeated(i));
      // Inlined values: each text is new, as an id list written into the SQL would be.
      for (let i = 0; i < 3; i++) await tx.execute(sql`select ${sql.raw(String(1000 + i))} as n, ${sql.raw(`'${tag}'`)} as tag, ${i}::int as i`);
      return tx.execute<{ statement: string }>(sql`select statement from pg_prepared_statements where statement like ${`%${tag}%`} and statement not like '%pg_prepared_statements%'`);
    });
    const texts = names.map((r) => r.statement);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('$1::int as n');
  });

  test('the first sighting runs unnamed, the second and later prepared; texts seen once are forgotten, not kept', () => {
    const text = `select $1 -- ${Math.random()}`;
    expect(preparesText(text)).toBe(false);
    expect(preparesText(text)).toBe(true);
    expect(preparesText(text)).toBe(true);
    for (let i = 0; i < 50; i++) expect(preparesText(`select ${i} -- once ${Math.random()}`)).toBe(false);
  });

  test('a statement that searches a pattern is planned for each pattern, never prepared', () => {
    for (const text of [
      `select id from contacts where email ilike $1 -- ${Math.random()}`,
      `select id from contacts where $1 <% name -- ${Math.random()}`,
      `select id from conversations where search @@ plainto_tsquery('simple', $1) -- ${Math.random()}`,
      `select word_similarity($1, name) from companies -- ${Math.random()}`,
    ]) {
      expect(preparesText(text)).toBe(false);
      expect(preparesText(text)).toBe(false);
    }
  });

  test('a savepoint keeps preparing, and rows come back as before', async () => {
    const rows = await getDb().transaction((tx) =>
      tx.transaction(async (inner) => {
        const out: number[] = [];
        for (let i = 0; i < 3; i++) out.push(...(await inner.execute<{ n: number }>(sql`select ${i}::int + 1 as n`)).map((r) => r.n));
        return out;
      }),
    );
    expect(rows).toEqual([1, 2, 3]);
  });
});
