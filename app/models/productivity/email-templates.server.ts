import { and, asc, count, eq, ilike, isNull, ne, or, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { ownerContentId } from '../inbox/attachments.server';
import { removeStoredFiles } from '../storage/files.server';
import { EMAIL_TEMPLATE_NAME_TAKEN_MESSAGE } from './schemas';
import { cleanQuery, FieldInputError, likePattern, paging, recordChange } from './shared.server';

export { renderTemplate, TEMPLATE_PLACEHOLDERS, type TemplateContact } from './templates';

export type EmailTemplate = typeof schema.emailTemplates.$inferSelect;

const e = schema.emailTemplates;

function templateWhere(accountId: number, q?: string | null) {
  const query = cleanQuery(q);
  return and(eq(e.accountId, accountId), query ? or(ilike(e.name, likePattern(query)), ilike(e.subject, likePattern(query))) : undefined);
}

/** The account's email templates matching `q` (name or subject), by name: what the reply box offers. */
export async function listEmailTemplates(opts: { accountId: number; q?: string | null; limit?: number }, db: DbOrTx = getDb()): Promise<EmailTemplate[]> {
  return db
    .select()
    .from(e)
    .where(templateWhere(opts.accountId, opts.q))
    .orderBy(sql`lower(${e.name})`, asc(e.id))
    .limit(opts.limit ?? 500);
}

/** One page of them for the settings list. */
export async function pageEmailTemplates(opts: { accountId: number; q?: string | null; page?: number; pageSize?: number }) {
  const { page, pageSize, offset } = paging(opts);
  const db = getDb();
  const where = templateWhere(opts.accountId, opts.q);
  const rows = await db.select().from(e).where(where).orderBy(sql`lower(${e.name})`, asc(e.id)).limit(pageSize).offset(offset);
  const [{ total }] = await db.select({ total: count() }).from(e).where(where);
  return { rows, total, page, pageSize };
}

export async function getEmailTemplate(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(e)
    .where(and(eq(e.accountId, opts.accountId), eq(e.id, opts.id)));
  return row;
}

async function checkNameFree(tx: Tx, accountId: number, name: string, exceptId?: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('email_templates'), ${accountId})`);
  const [clash] = await tx
    .select({ id: e.id })
    .from(e)
    .where(and(eq(e.accountId, accountId), sql`lower(${e.name}) = ${name.toLowerCase()}`, exceptId ? ne(e.id, exceptId) : undefined));
  if (clash) throw new FieldInputError(EMAIL_TEMPLATE_NAME_TAKEN_MESSAGE, 'name');
}

type TemplateFields = { name: string; subject?: string | null; body: string };
const clean = (f: TemplateFields) => ({ name: f.name.trim(), subject: f.subject?.trim() ?? '', body: f.body.trim() });

export async function createEmailTemplate(opts: { accountId: number; actorId: number | null } & TemplateFields) {
  const fields = clean(opts);
  return getDb().transaction(async (tx) => {
    await checkNameFree(tx, opts.accountId, fields.name);
    const [row] = await tx
      .insert(e)
      .values({ accountId: opts.accountId, ...fields })
      .returning();
    await recordChange(tx, { ...opts, type: 'email_template_created', subjectType: 'email_template', subjectId: row.id, payload: { name: row.name } });
    return row;
  });
}

/** Returns the updated template, or undefined when the account has no such one. */
export async function updateEmailTemplate(opts: { accountId: number; actorId: number | null; id: number } & TemplateFields) {
  const fields = clean(opts);
  return getDb().transaction(async (tx) => {
    const before = await getEmailTemplate(opts, tx);
    if (!before) return undefined;
    await checkNameFree(tx, opts.accountId, fields.name, before.id);
    const [row] = await tx
      .update(e)
      .set({ ...fields, updatedAt: new Date() })
      .where(and(eq(e.accountId, opts.accountId), eq(e.id, before.id)))
      .returning();
    await recordChange(tx, {
      ...opts,
      type: 'email_template_updated',
      subjectType: 'email_template',
      subjectId: row.id,
      payload: { name: row.name, previousName: before.name, changed: (['name', 'subject', 'body'] as const).filter((k) => before[k] !== row[k]) },
    });
    return row;
  });
}

/** Returns false when the account has no such template. Its attachments go with it. */
export async function deleteEmailTemplate(opts: { accountId: number; actorId: number | null; id: number }) {
  const keys = await getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(e)
      .where(and(eq(e.accountId, opts.accountId), eq(e.id, opts.id)))
      .returning();
    if (!row) return null;
    const files = await tx
      .delete(schema.attachments)
      .where(
        and(
          eq(schema.attachments.accountId, opts.accountId),
          isNull(schema.attachments.messageId),
          eq(schema.attachments.contentId, ownerContentId(`email-template:${row.id}`)),
        ),
      )
      .returning({ storageKey: schema.attachments.storageKey });
    await recordChange(tx, { ...opts, type: 'email_template_deleted', subjectType: 'email_template', subjectId: row.id, payload: { name: row.name } });
    return files.map((f) => f.storageKey);
  });
  if (keys === null) return false;
  await removeStoredFiles(keys);
  return true;
}
