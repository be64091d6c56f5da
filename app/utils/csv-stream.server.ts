import { stringify } from 'csv-stringify/sync';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { getSql } from '../../db/client';

/**
 * A query's rows as a CSV download: the header first, then a server-side cursor `pageRows` rows at a time, each page
 * written only when the reader asks for more, so memory stays flat however many rows there are. The query is built
 * with drizzle (so WHEREs compose) and run through postgres.js for its cursor. A failed page ends the download with
 * an error instead of leaving the reader waiting; a reader that goes away ends the cursor, so its connection
 * returns to the pool.
 */
export function csvStream<Row>(opts: { query: SQL; header: readonly string[]; toRecord: (row: Row) => unknown[]; pageRows?: number }) {
  const compiled = new PgDialect().sqlToQuery(opts.query);
  const query = getSql().unsafe<Row[]>(compiled.sql, compiled.params as never[]);
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<Row[]> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(stringify([[...opts.header]])));
      },
      async pull(controller) {
        iterator ??= query.cursor(opts.pageRows ?? 1000)[Symbol.asyncIterator]();
        try {
          const next = await iterator.next();
          if (next.done) {
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(stringify(next.value.map(opts.toRecord))));
        } catch (err) {
          await iterator.return?.().catch(() => {});
          controller.error(err);
        }
      },
      async cancel() {
        await iterator?.return?.();
      },
    },
    { highWaterMark: 1 },
  );
}

/** Neutralises a cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first). */
export const csvSafeCell = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
