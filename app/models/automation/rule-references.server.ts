import { and, eq, inArray } from 'drizzle-orm';
import { schema, type Tx } from '../../../db/client';
import { ASSIGNEE_REQUIRED, COMPANY_REQUIRED, INBOX_REQUIRED, TAGS_REQUIRED, type RuleAction } from './rule-types';

/**
 * The first user, tag, inbox or company a rule names (in its actions, or as a source inbox) that is not the
 * account's own — an id from another account is treated as if none were chosen — with the field and message to
 * show; null when every reference is the account's. Workflows and inbox automation rules both check with this.
 */
export async function findForeignReference(
  tx: Tx,
  opts: { accountId: number; actions: RuleAction[]; sources?: number[]; sourceMessage?: string },
): Promise<{ field: string; message: string } | null> {
  const { actions, sources = [] } = opts;
  const ids = (pick: (a: RuleAction) => number[]) => [...new Set(actions.flatMap(pick))];
  const known = async (table: typeof schema.users | typeof schema.tags | typeof schema.inboxes | typeof schema.companies, list: number[]) => {
    if (list.length === 0) return new Set<number>();
    const rows = await tx
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.accountId, opts.accountId), inArray(table.id, list)));
    return new Set(rows.map((x) => x.id));
  };
  const [users, tags, inboxes, companies] = await Promise.all([
    known(
      schema.users,
      ids((a) => (a.userId ? [a.userId] : [])),
    ),
    known(
      schema.tags,
      ids((a) => a.tagIds ?? []),
    ),
    known(schema.inboxes, [...new Set([...sources, ...ids((a) => (a.inboxId ? [a.inboxId] : []))])]),
    known(
      schema.companies,
      ids((a) => (a.companyId ? [a.companyId] : [])),
    ),
  ]);
  const badSource = sources.find((s) => !inboxes.has(s));
  if (badSource !== undefined) return { field: 'sources', message: opts.sourceMessage ?? INBOX_REQUIRED };
  for (const [i, a] of actions.entries()) {
    if (a.userId && !users.has(a.userId)) return { field: `actions[${i}].userId`, message: ASSIGNEE_REQUIRED };
    if (a.tagIds?.some((t) => !tags.has(t))) return { field: `actions[${i}].tagIds`, message: TAGS_REQUIRED };
    if (a.inboxId && !inboxes.has(a.inboxId)) return { field: `actions[${i}].inboxId`, message: INBOX_REQUIRED };
    if (a.companyId && !companies.has(a.companyId)) return { field: `actions[${i}].companyId`, message: COMPANY_REQUIRED };
  }
  return null;
}
