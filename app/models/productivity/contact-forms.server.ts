import crypto from 'node:crypto';
import { and, asc, count, desc, eq, ilike, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import type { ContactFormFields } from '../../../db/schema/inbox';
import { saveAttachment } from '../inbox/attachments.server';
import { removeStoredFiles } from '../storage/files.server';
import { createInbox, getInbox, InboxNameTakenError } from '../inbox/inboxes.server';
import { InvalidReferenceError, openConversation } from '../inbox/conversations.server';
import { INBOX_REQUIRED_MESSAGE, NEW_INBOX } from './schemas';
import { cleanQuery, FieldInputError, isUniqueViolation, likePattern, paging, recordChange } from './shared.server';
import type { UploadedFile } from './uploads.server';

export type ContactForm = typeof schema.contactForms.$inferSelect;

export const INBOX_NAME_TAKEN_MESSAGE = 'An inbox with this name already exists';

const f = schema.contactForms;

const listColumns = {
  id: f.id,
  headerText: f.headerText,
  subHeaderText: f.subHeaderText,
  isActive: f.isActive,
  code: f.code,
  inboxId: f.inboxId,
  inboxName: schema.inboxes.name,
  allowFields: f.allowFields,
  createdAt: f.createdAt,
};

function formWhere(accountId: number, q?: string | null) {
  const query = cleanQuery(q);
  return and(eq(f.accountId, accountId), query ? ilike(f.headerText, likePattern(query)) : undefined);
}

/** The account's contact forms with their inbox's name, newest first. */
export async function listContactForms(opts: { accountId: number; q?: string | null }) {
  return getDb()
    .select(listColumns)
    .from(f)
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, f.inboxId), eq(schema.inboxes.accountId, opts.accountId)))
    .where(formWhere(opts.accountId, opts.q))
    .orderBy(desc(f.createdAt), desc(f.id));
}

export async function pageContactForms(opts: { accountId: number; q?: string | null; page?: number; pageSize?: number }) {
  const { page, pageSize, offset } = paging(opts);
  const db = getDb();
  const where = formWhere(opts.accountId, opts.q);
  const rows = await db
    .select(listColumns)
    .from(f)
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, f.inboxId), eq(schema.inboxes.accountId, opts.accountId)))
    .where(where)
    .orderBy(desc(f.createdAt), desc(f.id))
    .limit(pageSize)
    .offset(offset);
  const [{ total }] = await db.select({ total: count() }).from(f).where(where);
  return { rows, total, page, pageSize };
}

export async function getContactForm(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)));
  return row;
}

/** The form a public URL names on this account's host (active or not: the page decides). */
export async function getContactFormByCode(opts: { accountId: number; code: string }) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.code)) return undefined;
  const [row] = await getDb()
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.code, opts.code)));
  return row;
}

/** The inboxes a form can deliver to: every inbox of the account. */
export async function listContactFormInboxes(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.inboxes.id, name: schema.inboxes.name, channelType: schema.inboxes.channelType })
    .from(schema.inboxes)
    .where(eq(schema.inboxes.accountId, opts.accountId))
    .orderBy(sql`lower(${schema.inboxes.name})`, asc(schema.inboxes.id));
}

export type ContactFormSettings = {
  headerText: string;
  subHeaderText: string;
  submitText: string;
  submitMsg: string;
  /** An inbox id of the account, or `new` with newInboxName to create a contact-form inbox. */
  inboxId: string | number;
  newInboxName?: string | null;
  allowPhone: boolean;
  allowAttachments: boolean;
  allowCaptcha: boolean;
};

function textsOf(s: ContactFormSettings) {
  return {
    headerText: s.headerText.trim(),
    subHeaderText: s.subHeaderText.trim(),
    submitText: s.submitText.trim(),
    submitMsg: s.submitMsg.trim(),
    allowFields: { phone: s.allowPhone, attachments: s.allowAttachments, captcha: s.allowCaptcha } satisfies ContactFormFields,
  };
}

/** The chosen inbox, checked to be the account's, or a new contact-form inbox made for the form. */
async function resolveInbox(opts: { accountId: number; actorId: number | null; inboxId: string | number; newInboxName?: string | null }) {
  if (opts.inboxId === NEW_INBOX) {
    const name = opts.newInboxName?.trim();
    if (!name) throw new FieldInputError(INBOX_REQUIRED_MESSAGE, 'inboxId');
    try {
      const inbox = await createInbox({ accountId: opts.accountId, actorId: opts.actorId, name, channelType: 'contact_form' });
      return inbox.id;
    } catch (err) {
      if (err instanceof InboxNameTakenError) throw new FieldInputError(INBOX_NAME_TAKEN_MESSAGE, 'newInboxName');
      throw err;
    }
  }
  const id = Number(opts.inboxId);
  const inbox = Number.isInteger(id) && id > 0 && id <= 2_147_483_647 ? await getInbox({ accountId: opts.accountId, id }) : undefined;
  if (!inbox) throw new FieldInputError(INBOX_REQUIRED_MESSAGE, 'inboxId');
  return inbox.id;
}

/** A public code: unguessable, URL-safe, short enough for an embed snippet. */
function newCode() {
  return crypto.randomBytes(12).toString('base64url');
}

export async function createContactForm(opts: { accountId: number; actorId: number | null } & ContactFormSettings) {
  const inboxId = await resolveInbox(opts);
  for (let attempt = 0; ; attempt++) {
    try {
      return await getDb().transaction(async (tx) => {
        const [form] = await tx
          .insert(f)
          .values({ accountId: opts.accountId, inboxId, ...textsOf(opts), code: newCode(), isActive: true })
          .returning();
        await recordChange(tx, {
          ...opts,
          type: 'contact_form_created',
          subjectType: 'contact_form',
          subjectId: form.id,
          payload: { headerText: form.headerText, inboxId, allowFields: form.allowFields },
        });
        return form;
      });
    } catch (err) {
      // 96 random bits do not collide; the retry is only there so that a collision could never be an error page.
      if (isUniqueViolation(err) && attempt < 3) continue;
      throw err;
    }
  }
}

/** Returns the updated form, or undefined when the account has no such form. The code never changes. */
export async function updateContactForm(opts: { accountId: number; actorId: number | null; id: number } & ContactFormSettings) {
  const before = await getContactForm(opts);
  if (!before) return undefined;
  const inboxId = await resolveInbox(opts);
  return getDb().transaction(async (tx) => {
    const [form] = await tx
      .update(f)
      .set({ inboxId, ...textsOf(opts), updatedAt: new Date() })
      .where(and(eq(f.accountId, opts.accountId), eq(f.id, before.id)))
      .returning();
    if (!form) return undefined;
    await recordChange(tx, {
      ...opts,
      type: 'contact_form_updated',
      subjectType: 'contact_form',
      subjectId: form.id,
      payload: { headerText: form.headerText, inboxId, previousInboxId: before.inboxId, allowFields: form.allowFields },
    });
    return form;
  });
}

/** The active flag of the page header. Returns undefined when the account has no such form. */
export async function setContactFormActive(opts: { accountId: number; actorId: number | null; id: number; isActive: boolean }) {
  return getDb().transaction(async (tx) => {
    const [form] = await tx
      .update(f)
      .set({ isActive: opts.isActive, updatedAt: new Date() })
      .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)))
      .returning();
    if (!form) return undefined;
    await recordChange(tx, { ...opts, type: 'contact_form_updated', subjectType: 'contact_form', subjectId: form.id, payload: { isActive: form.isActive } });
    return form;
  });
}

/** Returns false when the account has no such form. Its conversations stay in their inbox. */
export async function deleteContactForm(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [form] = await tx
      .delete(f)
      .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)))
      .returning();
    if (!form) return false;
    await recordChange(tx, { ...opts, type: 'contact_form_deleted', subjectType: 'contact_form', subjectId: form.id, payload: { headerText: form.headerText } });
    return true;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Submissions

/**
 * A visitor's message: a `support_form` conversation in the form's inbox, from the contact matched by email
 * (created when new, with the phone when given and the contact has none), the message as its first incoming
 * message with the attachments on it, all in one transaction (stored files are removed if it rolls back).
 */
export async function submitContactForm(opts: {
  accountId: number;
  formId: number;
  name: string;
  email: string;
  phone?: string | null;
  subject: string;
  message: string;
  files?: UploadedFile[];
}) {
  const form = await getContactForm({ accountId: opts.accountId, id: opts.formId });
  if (!form || !form.isActive) throw new InvalidReferenceError('This form is not available');
  const phone = form.allowFields.phone ? opts.phone?.trim() || null : null;
  const files = form.allowFields.attachments ? (opts.files ?? []) : [];
  const stored: string[] = [];
  try {
    return await getDb().transaction(async (tx) => {
      const result = await openConversation({
        tx,
        accountId: opts.accountId,
        inboxId: form.inboxId,
        sourceType: 'support_form',
        subject: opts.subject.trim(),
        contact: { email: opts.email, name: opts.name.trim(), phone },
        message: { kind: 'incoming', text: opts.message.trim() },
      });
      if (phone && !result.contact.phone) {
        await tx
          .update(schema.contacts)
          .set({ phone, updatedAt: new Date() })
          .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, result.contact.id)));
      }
      const attachments = [];
      for (const file of files) {
        const row = await saveAttachment(
          { accountId: opts.accountId, messageId: result.message.id, filename: file.filename, contentType: file.contentType, bytes: file.bytes },
          tx,
        );
        stored.push(row.storageKey);
        attachments.push(row);
      }
      return { ...result, attachments };
    });
  } catch (err) {
    await removeStoredFiles(stored);
    throw err;
  }
}
