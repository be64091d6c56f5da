import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractingStatements, EXPAND_CONTRACT_RULE } from './migration-rules';

const folder = path.join(__dirname, 'migrations');
const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number; tag: string; when: number }[] };
const previous = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tests', 'fixtures', 'upgrade', 'previous.json'), 'utf8')) as {
  newestMigration: string;
  newestMigrationWhen: number;
};

describe('migrations (ADR 154)', () => {
  it("this release's migrations only expand the schema, or say why a contracting statement is safe", () => {
    const ofThisRelease = journal.entries.filter((e) => e.when > previous.newestMigrationWhen);
    expect(ofThisRelease.length, 'the previous release fixture names a migration this build still has').toBeLessThan(journal.entries.length);
    const violations = ofThisRelease.flatMap((e) => contractingStatements(e.tag, fs.readFileSync(path.join(folder, `${e.tag}.sql`), 'utf8')));
    const report = violations.map((v) => `${v.migration}: ${v.what}:\n    ${v.statement}`).join('\n');
    expect(violations, `${report}\n\n${EXPAND_CONTRACT_RULE}`).toEqual([]);
  });

  it('the check catches each contracting statement and accepts one that carries the marker', () => {
    const sql = [
      'ALTER TABLE "users" DROP COLUMN "nickname";',
      'ALTER TABLE "users" RENAME COLUMN "name" TO "full_name";',
      'ALTER TABLE "users" ALTER COLUMN "email" SET NOT NULL;',
      'ALTER TABLE "users" ALTER COLUMN "age" SET DATA TYPE bigint;',
      'DROP TABLE "old_things";',
      'ALTER TABLE "users" ADD COLUMN "plan" text NOT NULL;',
      'ALTER TABLE "users" ADD COLUMN "tier" text DEFAULT \'free\' NOT NULL;',
      'ALTER TABLE "users" ADD COLUMN "bio" text;',
      'CREATE TABLE "x" ("id" serial PRIMARY KEY NOT NULL, "name" text NOT NULL);',
      '-- contract: "scratch" was added by this same release, no released version reads it\nDROP TABLE "scratch";',
    ].join('\n--> statement-breakpoint\n');
    expect(contractingStatements('9999_sample', sql).map((v) => v.what)).toEqual([
      'drops a column',
      'renames',
      'sets NOT NULL on an existing column',
      "changes a column's type",
      'drops a table, view, type, function or schema',
      'adds a NOT NULL column without a default',
    ]);
  });

  it('the journal is in order: each migration newer than the one before, and every file listed', () => {
    // Migrations are applied by time (drizzle's rule: what is newer than the newest applied): a migration listed after
    // a newer one would be skipped on a database that has that newer one. Branches merged together can produce this;
    // fix it by giving the later entries larger `when` values (milliseconds), in journal order.
    for (const [i, e] of journal.entries.entries()) {
      if (i > 0) expect(e.when, `${e.tag} must be newer (when) than ${journal.entries[i - 1]!.tag}`).toBeGreaterThan(journal.entries[i - 1]!.when);
      expect(fs.existsSync(path.join(folder, `${e.tag}.sql`)), `${e.tag}.sql`).toBe(true);
    }
    const files = fs.readdirSync(folder).filter((f) => f.endsWith('.sql'));
    expect(files.sort()).toEqual(journal.entries.map((e) => `${e.tag}.sql`).sort());
  });
});
