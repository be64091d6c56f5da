/**
 * The rule for migrations that must run while nodes of the previous version still serve (ADR 154, docs/upgrading.md,
 * "Changes that old nodes survive"), as a check over migration SQL: db/migrations.test.ts runs it on every migration
 * newer than the previous release's (tests/fixtures/upgrade/previous.json).
 */
export const EXPAND_CONTRACT_RULE =
  'A migration runs while nodes of the previous version still serve (rolling upgrade): it may only EXPAND the schema — ' +
  'new tables, new columns that are nullable or have a default, new indexes. Dropping or renaming a table or column, ' +
  "SET NOT NULL, changing a column type, or a NOT NULL column without a default breaks the old nodes' queries. Do it in " +
  'steps: release N adds the new shape and writes both; release N+1 (when no node of N-1 runs) contracts. A statement ' +
  'that is safe anyway (it touches only what this same release added, or what no released version reads) carries a ' +
  'comment `-- contract: <why old nodes are not affected>` in the same statement. See docs/upgrading.md.';

const CONTRACTING: Array<{ what: string; pattern: RegExp }> = [
  { what: 'drops a table, view, type, function or schema', pattern: /\bDROP\s+(TABLE|VIEW|MATERIALIZED\s+VIEW|TYPE|FUNCTION|SCHEMA)\b/i },
  { what: 'drops a column', pattern: /\bDROP\s+COLUMN\b/i },
  { what: 'renames', pattern: /\bRENAME\b/i },
  { what: 'sets NOT NULL on an existing column', pattern: /\bSET\s+NOT\s+NULL\b/i },
  { what: "changes a column's type", pattern: /\bALTER\s+COLUMN\s+("[^"]+"|\w+)\s+(SET\s+DATA\s+)?TYPE\b/i },
];

const MARKER = /^\s*--\s*contract:\s*\S/im;

export type RuleViolation = { migration: string; statement: string; what: string };

/** The statements of one migration file (drizzle's `--> statement-breakpoint` chunks) that contract without the marker. */
export function contractingStatements(migration: string, fileText: string): RuleViolation[] {
  const found: RuleViolation[] = [];
  for (const chunk of fileText.split('--> statement-breakpoint')) {
    if (MARKER.test(chunk)) continue;
    // Comments do not count as SQL.
    const statement = chunk.replace(/--.*$/gm, '').trim();
    if (!statement) continue;
    for (const { what, pattern } of CONTRACTING) {
      if (pattern.test(statement)) found.push({ migration, statement: statement.slice(0, 200), what });
    }
    // A NOT NULL column without a default: the old nodes' inserts do not name it and fail.
    if (/\bADD\s+COLUMN\b/i.test(statement) && /\bNOT\s+NULL\b/i.test(statement) && !/\bDEFAULT\b/i.test(statement) && !/\bGENERATED\b/i.test(statement)) {
      found.push({ migration, statement: statement.slice(0, 200), what: 'adds a NOT NULL column without a default' });
    }
  }
  return found;
}
