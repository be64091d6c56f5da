import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import { ownerContentId, saveAttachment } from '../inbox/attachments.server';
import { checkReplyFiles, MAX_REPLY_FILES, REPLY_TOO_MANY_FILES, ReplyFileError, type ReplyFile } from '../inbox/replies.server';
import { readStoredFile, removeStoredFiles } from '../storage/files.server';
import { getEmailTemplate } from './email-templates.server';
import { recordChange } from './shared.server';

/**
 * An email template's attachments (spec: templates/{id}/attachment; ADR 149): files stored like a message's, in the
 * attachments table without a message, owned by the template through their Content-ID. Using the template in a reply
 * copies them into the reply, so a later change to the template never changes what was sent. The reply's limits
 * hold for the template's files together (at most MAX_REPLY_FILES, 10 MB each, 25 MB together).
 */
const a = schema.attachments;
const owned = (accountId: number, templateId: number) =>
  and(eq(a.accountId, accountId), isNull(a.messageId), eq(a.contentId, ownerContentId(`email-template:${templateId}`)));

export type TemplateAttachment = { id: number; filename: string; contentType: string; size: number };

/** The template's files, oldest first. */
export async function listTemplateAttachments(opts: { accountId: number; templateId: number }, db: DbOrTx = getDb()): Promise<TemplateAttachment[]> {
  return db
    .select({ id: a.id, filename: a.filename, contentType: a.contentType, size: a.size })
    .from(a)
    .where(owned(opts.accountId, opts.templateId))
    .orderBy(asc(a.id));
}

/** The files of several templates (the reply box lists each template's), by template id. */
export async function listAttachmentsOfTemplates(opts: { accountId: number; templateIds: number[] }) {
  const out = new Map<number, TemplateAttachment[]>();
  if (opts.templateIds.length === 0) return out;
  const rows = await getDb()
    .select({ id: a.id, filename: a.filename, contentType: a.contentType, size: a.size, contentId: a.contentId })
    .from(a)
    .where(and(eq(a.accountId, opts.accountId), isNull(a.messageId), inArray(a.contentId, opts.templateIds.map((id) => ownerContentId(`email-template:${id}`)))))
    .orderBy(asc(a.id));
  for (const { contentId, ...row } of rows) {
    const id = Number(contentId!.split(':').pop());
    out.set(id, [...(out.get(id) ?? []), row]);
  }
  return out;
}

/**
 * Adds files to the template; ReplyFileError (the reply's words) when they are too many, too large or programs,
 * with nothing stored. Undefined when the account has no such template.
 */
export async function addTemplateAttachments(opts: { accountId: number; actorId: number | null; templateId: number; files: ReplyFile[] }) {
  const template = await getEmailTemplate({ accountId: opts.accountId, id: opts.templateId });
  if (!template) return undefined;
  if (opts.files.length === 0) throw new ReplyFileError('Choose a file to attach');
  const existing = await listTemplateAttachments(opts);
  if (existing.length + opts.files.length > MAX_REPLY_FILES) throw new ReplyFileError(REPLY_TOO_MANY_FILES);
  // The template's files go out together in one reply: the reply's limits apply to all of them.
  const stored = await Promise.all(existing.map((f) => readTemplateFile(opts.accountId, opts.templateId, f.id)));
  await checkReplyFiles([...stored.filter((f): f is ReplyFile => !!f), ...opts.files]);
  return getDb().transaction(async (tx) => {
    const rows = [];
    for (const f of opts.files)
      rows.push(await saveAttachment({ accountId: opts.accountId, messageId: null, filename: f.name, contentType: f.type, bytes: f.bytes, owner: `email-template:${template.id}` }, tx));
    await recordChange(tx, {
      ...opts,
      type: 'email_template_updated',
      subjectType: 'email_template',
      subjectId: template.id,
      payload: { name: template.name, changed: ['attachments'], added: rows.map((r) => r.filename) },
    });
    return rows;
  });
}

/** Removes one of the template's files; false when the template (of this account) has no such file. */
export async function removeTemplateAttachment(opts: { accountId: number; actorId: number | null; templateId: number; attachmentId: number }) {
  const template = await getEmailTemplate({ accountId: opts.accountId, id: opts.templateId });
  if (!template) return false;
  const removed = await getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(a)
      .where(and(owned(opts.accountId, template.id), eq(a.id, opts.attachmentId)))
      .returning();
    if (!row) return null;
    await recordChange(tx, {
      ...opts,
      type: 'email_template_updated',
      subjectType: 'email_template',
      subjectId: template.id,
      payload: { name: template.name, changed: ['attachments'], removed: [row.filename] },
    });
    return row;
  });
  if (!removed) return false;
  await removeStoredFiles([removed.storageKey]);
  return true;
}

async function readTemplateFile(accountId: number, templateId: number, id: number): Promise<ReplyFile | null> {
  const [row] = await getDb()
    .select()
    .from(a)
    .where(and(owned(accountId, templateId), eq(a.id, id)));
  if (!row) return null;
  const bytes = await readStoredFile(row.storageKey);
  if (!bytes) throw new Error(`The stored file of template attachment ${id} is missing`);
  return { name: row.filename, type: row.contentType, bytes };
}

/**
 * The chosen files of a template, read for a reply (which stores its own copies): only files of a template of this
 * account; an id that is not one is refused with the form's message.
 */
export async function templateFilesForReply(opts: { accountId: number; ids: number[] }): Promise<ReplyFile[]> {
  if (opts.ids.length === 0) return [];
  const rows = await getDb()
    .select()
    .from(a)
    .where(and(eq(a.accountId, opts.accountId), isNull(a.messageId), inArray(a.id, opts.ids)));
  const mine = rows.filter((r) => r.contentId?.startsWith('parley:email-template:'));
  if (mine.length !== new Set(opts.ids).size) throw new ReplyFileError('A template attachment is no longer there: insert the template again');
  const files: ReplyFile[] = [];
  for (const row of mine.sort((x, y) => x.id - y.id)) {
    const bytes = await readStoredFile(row.storageKey);
    if (!bytes) throw new ReplyFileError(`${row.filename} of the template is no longer stored`);
    files.push({ name: row.filename, type: row.contentType, bytes });
  }
  return files;
}
