import fs from 'node:fs';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { getSql } from '../../../db/client';
import { getConfig } from '../../utils/env.server';

/*
 * PLACEHOLDER for helper D's account export (issue 37): the lead replaces this file with D's at merge. It keeps D's
 * signature so that the operator console's delete (C) calls the real export once merged. Until then it writes a
 * real, if plain, archive: every row of every table with an account_id column, as JSON lines, gzipped, under
 * PARLEY_DATA_DIR/exports. Stored files are not in it.
 */

export async function requestAccountExport(_opts: { accountId: number; requestedBy: { kind: 'user' | 'operator'; id: number } }): Promise<{ exportId: number }> {
  throw new Error('Account exports on request are built by helper D (issue 37); not on this branch');
}

export async function exportAccountNow(opts: { accountId: number }): Promise<{ path: string; sizeBytes: number }> {
  const sqlc = getSql();
  const dir = path.join(getConfig().dataDir, 'exports');
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, `account-${opts.accountId}-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl.gz`);
  const tables = await sqlc<{ table_name: string }[]>`
    select c.table_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and c.column_name = 'account_id' and c.table_name <> 'operator_audit_entries'
      and not exists (select 1 from pg_inherits i join pg_class p on p.oid = i.inhrelid where p.relname = c.table_name)
    order by c.table_name`;
  async function* lines() {
    const [account] = await sqlc`select * from accounts where id = ${opts.accountId}`;
    yield `${JSON.stringify({ table: 'accounts', row: account })}\n`;
    for (const { table_name } of tables) {
      const cursor = sqlc`select * from ${sqlc(table_name)} where account_id = ${opts.accountId}`.cursor(500);
      for await (const rows of cursor) for (const row of rows) yield `${JSON.stringify({ table: table_name, row }, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}\n`;
    }
  }
  await pipeline(Readable.from(lines()), createGzip(), fs.createWriteStream(file, { mode: 0o600 }));
  return { path: file, sizeBytes: (await fs.promises.stat(file)).size };
}
