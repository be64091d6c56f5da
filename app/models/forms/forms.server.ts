import crypto from 'node:crypto';
import { and, count, desc, eq, ilike, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { FormAnswer, FormFieldDef } from '../../../db/schema/forms';
import { splitName, findOrCreateContact, type Contact } from '../contacts/contacts.server';
import { ensureCompanyByName } from '../crm/companies.server';
import { emitEvent } from '../events/events.server';
import { domainEventJobInsert, JOBS_CHANNEL, QUEUES } from '../../utils/jobs.server';
import { currentRequestOrigin } from '../../utils/request-origin.server';
import { removeStoredFiles, writeStoredFile } from '../storage/files.server';
import { openConversation } from '../inbox/conversations.server';
import { cleanQuery, isUniqueViolation, likePattern, recordChange } from '../productivity/shared.server';
import type { UploadedFile } from '../productivity/uploads.server';
import { csvSafeCell, csvStream } from '../../utils/csv-stream.server';
import { FIELD_TYPE_LABELS, FORMS_PAGE_SIZE, type FormFieldType, type FormStatus } from './constants';
import { parseOptions, type FormBuilderInput } from './schemas';

export type Form = typeof schema.forms.$inferSelect;
export type FormResponse = typeof schema.formResponses.$inferSelect;

const f = schema.forms;
const r = schema.formResponses;

/** A rule the builder's schema cannot see (an inbox of another account). Routes answer it with a 400. */
export class FormInputError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** A public code: unguessable, URL-safe, short enough for an embed snippet. */
const newCode = () => crypto.randomBytes(9).toString('base64url');
const newFieldKey = () => `f_${crypto.randomBytes(4).toString('hex')}`;

export async function listForms(opts: { accountId: number; q?: string | null; page?: number }) {
  const q = cleanQuery(opts.q);
  const where = and(eq(f.accountId, opts.accountId), q ? ilike(f.name, likePattern(q)) : undefined);
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const responses = db
    .select({ formId: r.formId, n: count().as('n'), last: sql<Date | null>`max(${r.createdAt})`.as('last') })
    .from(r)
    .where(eq(r.accountId, opts.accountId))
    .groupBy(r.formId)
    .as('responses');
  const rows = await db
    .select({ id: f.id, name: f.name, code: f.code, status: f.status, createdAt: f.createdAt, responses: sql<number>`coalesce(${responses.n}, 0)::int`, lastResponseAt: responses.last })
    .from(f)
    .leftJoin(responses, eq(responses.formId, f.id))
    .where(where)
    .orderBy(desc(f.createdAt), desc(f.id))
    .limit(FORMS_PAGE_SIZE)
    .offset((page - 1) * FORMS_PAGE_SIZE);
  const [{ total }] = await db.select({ total: count() }).from(f).where(where);
  return { rows, total, page, pageSize: FORMS_PAGE_SIZE };
}

export async function getForm(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)));
  return row;
}

/** The form a public URL names on this account's host, published or not (the page decides). */
export async function getFormByCode(opts: { accountId: number; code: string }) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.code)) return undefined;
  const [row] = await getDb()
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.code, opts.code)));
  return row;
}

/**
 * A published form at a public URL, found by its account's host (`domain`) and code in one read (ADR 123): the
 * public page's tenant and form together. A draft, an unknown code and an unknown account are all undefined.
 */
export async function getPublishedFormOnHost(opts: { domain: string; code: string }) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.code)) return undefined;
  const [row] = await getDb()
    .select({ form: f, suspendedAt: schema.accounts.suspendedAt })
    .from(f)
    .innerJoin(schema.accounts, eq(schema.accounts.id, f.accountId))
    .where(and(sql`lower(${schema.accounts.domain}) = ${opts.domain.toLowerCase()}`, eq(f.code, opts.code), eq(f.status, 'published')));
  // A suspended account's form (ADR 152) is there, but takes nothing: the route answers with the suspended page.
  return row ? { ...row.form, accountSuspended: Boolean(row.suspendedAt) } : undefined;
}

/** A public form shown to a visitor: the event the Forms report counts as a view (ADR 102). */
export async function recordFormView(opts: { accountId: number; formId: number }) {
  await getDb().transaction((tx) =>
    emitEvent(tx, { accountId: opts.accountId, type: 'form_viewed', subjectType: 'form', subjectId: opts.formId, payload: { formId: opts.formId } }),
  );
}

/** A new draft with the fields most forms start from: full name, email and a free-text message. */
export async function createForm(opts: { accountId: number; actorId: number | null; name: string }) {
  const fields: FormFieldDef[] = [
    { key: newFieldKey(), type: 'full_name', label: 'Full name', required: true },
    { key: newFieldKey(), type: 'email', label: 'Email', required: true },
    { key: newFieldKey(), type: 'long_text', label: 'Message', required: false },
  ];
  for (let attempt = 0; ; attempt++) {
    try {
      return await getDb().transaction(async (tx) => {
        const [form] = await tx
          .insert(f)
          .values({ accountId: opts.accountId, name: opts.name.trim(), code: newCode(), headerText: opts.name.trim(), fields })
          .returning();
        await recordChange(tx, { ...opts, type: 'form_created', subjectType: 'form', subjectId: form.id, payload: { name: form.name } });
        return form;
      });
    } catch (err) {
      if (isUniqueViolation(err) && attempt < 3) continue;
      throw err;
    }
  }
}

/** A builder row operation, applied to the submitted rows before they are saved (row add/remove/move, ADR 067). */
export type RowOperation = { op: 'add'; type: FormFieldType } | { op: 'remove'; index: number } | { op: 'up'; index: number } | { op: 'down'; index: number };

export function applyRowOperation(fields: FormFieldDef[], operation: RowOperation | null): FormFieldDef[] {
  const next = [...fields];
  if (!operation) return next;
  if (operation.op === 'add') {
    next.push({ key: newFieldKey(), type: operation.type, label: FIELD_TYPE_LABELS[operation.type], required: false, ...(operation.type === 'choice' ? { options: ['Yes', 'No'] } : {}) });
    return next;
  }
  const i = operation.index;
  if (!Number.isInteger(i) || i < 0 || i >= next.length) return next;
  if (operation.op === 'remove') next.splice(i, 1);
  else {
    const j = operation.op === 'up' ? i - 1 : i + 1;
    if (j >= 0 && j < next.length) [next[i], next[j]] = [next[j], next[i]];
  }
  return next;
}

/** The rows as typed, as stored field definitions. */
export function fieldDefsOf(input: FormBuilderInput): FormFieldDef[] {
  return input.fields.map((row) => ({
    key: row.key,
    type: row.type,
    label: row.label,
    required: row.type === 'file' ? false : row.required,
    ...(row.type === 'choice' ? { options: parseOptions(row.options) } : {}),
  }));
}

/** Saves the builder (settings and rows); undefined when the account has no such form. */
export async function saveForm(opts: { accountId: number; actorId: number | null; id: number; input: FormBuilderInput; fields: FormFieldDef[] }) {
  const { input } = opts;
  if (input.inboxId !== null) {
    const [inbox] = await getDb()
      .select({ id: schema.inboxes.id })
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, input.inboxId)));
    if (!inbox) throw new FormInputError('Choose an inbox', 'inboxId');
  }
  return getDb().transaction(async (tx) => {
    const [form] = await tx
      .update(f)
      .set({
        name: input.name,
        headerText: input.headerText,
        description: input.description,
        submitText: input.submitText,
        brandColour: input.brandColour,
        thankYouMessage: input.thankYouMessage,
        redirectUrl: input.redirectUrl,
        captcha: input.captcha,
        inboxId: input.inboxId,
        fields: opts.fields,
        updatedAt: new Date(),
      })
      .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)))
      .returning();
    if (!form) return undefined;
    await recordChange(tx, { ...opts, type: 'form_updated', subjectType: 'form', subjectId: form.id, payload: { name: form.name, fields: form.fields.length } });
    return form;
  });
}

export async function setFormStatus(opts: { accountId: number; actorId: number | null; id: number; status: FormStatus }) {
  return getDb().transaction(async (tx) => {
    const [form] = await tx
      .update(f)
      .set({ status: opts.status, updatedAt: new Date() })
      .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)))
      .returning();
    if (!form) return undefined;
    await recordChange(tx, { ...opts, type: 'form_updated', subjectType: 'form', subjectId: form.id, payload: { status: form.status } });
    return form;
  });
}

/** Deletes a form with its responses (their contacts and conversations stay). False when there is no such form. */
export async function deleteForm(opts: { accountId: number; actorId: number | null; id: number }) {
  const files = await responseFiles({ accountId: opts.accountId, formId: opts.id });
  const deleted = await getDb().transaction(async (tx) => {
    const [form] = await tx
      .delete(f)
      .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)))
      .returning();
    if (!form) return false;
    await recordChange(tx, { ...opts, type: 'form_deleted', subjectType: 'form', subjectId: form.id, payload: { name: form.name } });
    return true;
  });
  if (deleted) await removeStoredFiles(files);
  return deleted;
}

// ---------------------------------------------------------------------------------------------------------
// Submissions

export type SubmittedAnswers = Record<string, string | undefined>;

function firstOfType(fields: FormFieldDef[], answers: SubmittedAnswers, type: FormFieldType) {
  const field = fields.find((x) => x.type === type && answers[x.key]?.trim());
  return field ? answers[field.key]!.trim() : null;
}

/** What the form says about the contact: name, phone, title, website, country, company (ADR 067). */
async function updateContactFromAnswers(tx: Tx, opts: { accountId: number; contact: Contact; fields: FormFieldDef[]; answers: SubmittedAnswers }) {
  const { contact } = opts;
  const contactId = contact.id;
  const pick = (type: FormFieldType) => firstOfType(opts.fields, opts.answers, type);
  const set: Partial<typeof schema.contacts.$inferInsert> = {};
  const name = pick('full_name');
  if (name) Object.assign(set, splitName(name));
  const phone = pick('phone');
  if (phone) set.phone = phone.replace(/[\s()-]/g, '');
  const title = pick('job_title');
  if (title) set.title = title.slice(0, 100);
  const website = pick('website');
  if (website) set.website = /^https?:\/\//i.test(website) ? website : `https://${website}`;
  const country = pick('country');
  const company = pick('company');
  if (country) {
    set.country = country;
    set.address = { ...contact.address, country };
  }
  if (company && !contact.companyId) set.companyId = await ensureCompanyByName(tx, { accountId: opts.accountId, actorId: null, name: company.slice(0, 100) });
  const changed = Object.keys(set).filter((k) => JSON.stringify((contact as Record<string, unknown>)[k]) !== JSON.stringify((set as Record<string, unknown>)[k]));
  if (!changed.length) return;
  await tx
    .update(schema.contacts)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, contactId)));
  await emitEvent(tx, {
    accountId: opts.accountId,
    type: 'contact_updated',
    subjectType: 'contact',
    subjectId: contactId,
    payload: { contactId, changed, source: 'form' },
    actor: { type: 'contact', id: contactId },
  });
}

/** The answers as lines of text: the conversation's first message. */
function answersText(fields: FormFieldDef[], answers: Record<string, FormAnswer>) {
  return fields
    .map((x) => {
      const a = answers[x.key];
      if (a === undefined || a === '') return null;
      return `${x.label}: ${typeof a === 'string' ? (x.type === 'consent' ? 'Yes' : a) : a.filename}`;
    })
    .filter(Boolean)
    .join('\n');
}

/** A fixed window counted in `rate_limits` (app/utils/rate-limit.server.ts): the submission's statement counts it. */
export type SubmissionRateLimit = { key: string; limit: number; windowMs: number };

/** The submission's statement found the window full: nothing was stored. */
export class FormRateLimited extends Error {
  constructor(readonly resetAt: Date) {
    super('Too many submissions');
  }
}

/**
 * A visitor's answers (ADR 067, ADR 112, ADR 123): the response and its `form_submitted` event with the engine's job
 * are written by ONE statement (its CTEs commit together or not at all), after any uploaded files are stored (and
 * removed again if it fails). With `rateLimit`, the same statement counts the attempt first and stores nothing when
 * the window is full (FormRateLimited). The response is `pending`: the contact (matched by email, created or
 * updated), its company, the conversation in the form's inbox and the agents' notifications are made by the engine
 * from the event (`completeFormSubmission`), moments later.
 */
export async function submitForm(opts: { accountId: number; form: Form; answers: SubmittedAnswers; files?: UploadedFile[]; rateLimit?: SubmissionRateLimit }) {
  const { form } = opts;
  const fields = form.fields;
  const email = firstOfType(fields, opts.answers, 'email')?.toLowerCase() ?? null;
  if (!email) throw new FormInputError('Please enter a valid email', fields.find((x) => x.type === 'email')?.key ?? 'email');
  const stored: string[] = [];
  const answers: Record<string, FormAnswer> = {};
  for (const x of fields) {
    const v = opts.answers[x.key]?.trim();
    if (x.type !== 'file' && v) answers[x.key] = v;
  }
  try {
    const fileField = fields.find((x) => x.type === 'file');
    const files = fileField ? (opts.files ?? []) : [];
    const storedFiles = [];
    for (const file of files) {
      const { storageKey } = await writeStoredFile(opts.accountId, file.bytes);
      stored.push(storageKey);
      storedFiles.push({ filename: file.filename.slice(0, 200), contentType: file.contentType, size: file.bytes.length, storageKey });
    }
    // One file is the answer itself; more are listed one after another under the same field.
    if (fileField && storedFiles.length) answers[fileField.key] = storedFiles[0];
    for (let i = 1; i < storedFiles.length; i++) answers[`${fileField!.key}_${i + 1}`] = storedFiles[i];

    // contactId and conversationId are filled in by the forms handler before any other handler reads the event.
    const payload = { formId: form.id, formName: form.name, inboxId: form.inboxId, contactId: null, conversationId: null, email };
    const origin = currentRequestOrigin();
    const limit = opts.rateLimit;
    const [row] = await getDb().execute<{ id: number | null; created_at: string | Date | null; event_id: string | number | null; job_id: string | null; count: number | null; reset_at: string | Date | null }>(sql`
      with hit as (
        ${
          limit
            ? sql`insert into rate_limits (key, count, reset_at)
                  values (${limit.key}, 1, now() + ${limit.windowMs} * interval '1 millisecond')
                  on conflict (key) do update set
                    count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
                    reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
                  returning count, reset_at`
            : sql`select 0 as count, null::timestamptz as reset_at`
        }
      ), response as (
        insert into form_responses (account_id, form_id, contact_id, conversation_id, answers, fields_at_submit, email, pending)
        select ${opts.accountId}, ${form.id}, null, null, ${JSON.stringify(answers)}::jsonb, ${JSON.stringify(fields)}::jsonb, ${email}, true
          from hit where hit.count <= ${limit?.limit ?? 0}
        returning id, created_at
      ), event as (
        insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, ip, user_agent)
        select ${opts.accountId}, 'form_submitted', 'form_response', response.id::text, ${JSON.stringify(payload)}::jsonb, 'contact', null, ${origin?.ip ?? null}, ${origin?.userAgent ?? null}
          from response
        returning id, type
      ), job as (${domainEventJobInsert(sql`select id, type from event`)})
      select response.id, response.created_at, event.id as event_id, job.id as job_id, hit.count, hit.reset_at,
             (select pg_notify(${JOBS_CHANNEL}, ${QUEUES.domainEvents}) from job) as notified
        from hit left join response on true left join event on true left join job on true`);
    if (!row?.id) {
      if (limit && row && Number(row.count) > limit.limit) throw new FormRateLimited(new Date(row.reset_at ?? Date.now()));
      throw new Error('form submission not stored');
    }
    if (!row.job_id) throw new Error(`queue ${QUEUES.domainEvents} does not exist`);
    return { id: Number(row.id), createdAt: new Date(row.created_at!), eventId: Number(row.event_id), contactId: null, conversationId: null, pending: true };
  } catch (err) {
    await removeStoredFiles(stored);
    throw err;
  }
}

/** The handler's name in event_handlings: its record is written in the transaction of its work. */
export const FORM_SUBMISSION_HANDLER = 'forms';

/**
 * The engine's half of a submission (ADR 112), exactly once per event: in one transaction, the handler's
 * event_handlings row is claimed, the contact is created or updated from the answers (company included), the
 * conversation is opened in the inbox the form had when it was submitted, the response gets both and stops being
 * pending, and the event's payload gets their ids (what workflows, webhooks and later handlers read). A redelivered
 * or concurrent twin finds the row claimed and only reads the completed payload. Returns null when already done.
 */
export async function completeFormSubmission(event: { id: number; accountId: number; subjectId: string; payload: Record<string, unknown> }) {
  const accountId = event.accountId;
  const eventId = Number(event.id);
  return getDb().transaction(async (tx) => {
    const claimed = await tx
      .insert(schema.eventHandlings)
      .values({ eventId, handler: FORM_SUBMISSION_HANDLER, accountId, status: 'done', result: {} })
      .onConflictDoUpdate({
        target: [schema.eventHandlings.eventId, schema.eventHandlings.handler],
        set: { status: 'done', error: null, handledAt: new Date() },
        setWhere: sql`${schema.eventHandlings.status} <> 'done'`,
      })
      .returning({ eventId: schema.eventHandlings.eventId });
    if (claimed.length === 0) {
      const [row] = await tx.select({ payload: schema.domainEvents.payload }).from(schema.domainEvents).where(eq(schema.domainEvents.id, eventId));
      return { done: 'before' as const, payload: row?.payload ?? event.payload };
    }
    const [response] = await tx
      .select()
      .from(r)
      .where(and(eq(r.accountId, accountId), eq(r.id, Number(event.subjectId))))
      .for('update');
    // Deleted (with its form, or by an agent) before the engine came to it: nothing to file.
    if (!response) {
      await tx.update(schema.eventHandlings).set({ result: { skipped: 'response deleted' } }).where(and(eq(schema.eventHandlings.eventId, eventId), eq(schema.eventHandlings.handler, FORM_SUBMISSION_HANDLER)));
      return { done: 'now' as const, payload: event.payload, responseId: null };
    }
    const fields = response.fieldsAtSubmit;
    const answers: SubmittedAnswers = {};
    for (const [k, v] of Object.entries(response.answers)) if (typeof v === 'string') answers[k] = v;
    const email = response.email ?? firstOfType(fields, answers, 'email')?.toLowerCase() ?? null;
    const name = firstOfType(fields, answers, 'full_name');
    const formName = String(event.payload.formName ?? 'Form');
    const inboxId = typeof event.payload.inboxId === 'number' ? event.payload.inboxId : null;
    let contact: Contact;
    let conversationId: number | null = null;
    const [inbox] = inboxId
      ? await tx.select({ id: schema.inboxes.id }).from(schema.inboxes).where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, inboxId)))
      : [];
    if (inbox) {
      const opened = await openConversation({
        tx,
        accountId,
        inboxId: inbox.id,
        sourceType: 'support_form',
        subject: formName,
        contact: { email, name },
        message: { kind: 'incoming', text: answersText(fields, response.answers) || formName, createdAt: response.createdAt },
      });
      contact = opened.contact;
      conversationId = opened.conversation.id;
    } else {
      contact = (await findOrCreateContact(tx, { accountId, email, name, source: 'form' })).contact;
    }
    await updateContactFromAnswers(tx, { accountId, contact, fields, answers });
    await tx.update(r).set({ contactId: contact.id, conversationId, pending: false }).where(and(eq(r.accountId, accountId), eq(r.id, response.id)));
    const payload = { ...event.payload, contactId: contact.id, conversationId };
    await tx
      .update(schema.domainEvents)
      .set({ payload, actorId: contact.id })
      .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.id, eventId)));
    const result = { responseId: response.id, contactId: contact.id, conversationId };
    await tx.update(schema.eventHandlings).set({ result }).where(and(eq(schema.eventHandlings.eventId, eventId), eq(schema.eventHandlings.handler, FORM_SUBMISSION_HANDLER)));
    return { done: 'now' as const, payload, ...result };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Responses

export type ResponseFilters = { q?: string | null; from?: Date | null; to?: Date | null };

function responseWhere(opts: { accountId: number; formId: number } & ResponseFilters) {
  const q = cleanQuery(opts.q);
  return and(
    eq(r.accountId, opts.accountId),
    eq(r.formId, opts.formId),
    q ? sql`(lower(${r.email}) like ${likePattern(q.toLowerCase())} or ${r.answers}::text ilike ${likePattern(q)})` : undefined,
    opts.from ? sql`${r.createdAt} >= ${opts.from}` : undefined,
    opts.to ? sql`${r.createdAt} < ${opts.to}` : undefined,
  );
}

export async function listResponses(opts: { accountId: number; formId: number; page?: number } & ResponseFilters) {
  const page = Math.max(1, opts.page ?? 1);
  const where = responseWhere(opts);
  const db = getDb();
  const rows = await db
    .select({
      id: r.id,
      email: r.email,
      answers: r.answers,
      contactId: r.contactId,
      conversationId: r.conversationId,
      pending: r.pending,
      createdAt: r.createdAt,
      firstName: schema.contacts.firstName,
      lastName: schema.contacts.lastName,
    })
    .from(r)
    .leftJoin(schema.contacts, and(eq(schema.contacts.id, r.contactId), eq(schema.contacts.accountId, opts.accountId)))
    .where(where)
    .orderBy(desc(r.id))
    .limit(FORMS_PAGE_SIZE)
    .offset((page - 1) * FORMS_PAGE_SIZE);
  const [{ total }] = await db.select({ total: count() }).from(r).where(where);
  return { rows, total, page, pageSize: FORMS_PAGE_SIZE };
}

export async function getResponse(opts: { accountId: number; formId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.formId, opts.formId), eq(r.id, opts.id)));
  return row;
}

/** A file answer of one response, for the agent's download link. */
export function fileAnswer(response: FormResponse, key: string) {
  const a = response.answers[key];
  return a && typeof a === 'object' ? a : undefined;
}

async function responseFiles(opts: { accountId: number; formId: number; id?: number }) {
  const rows = await getDb()
    .select({ answers: r.answers })
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.formId, opts.formId), opts.id ? eq(r.id, opts.id) : undefined));
  return rows.flatMap((row) => Object.values(row.answers).flatMap((a) => (typeof a === 'object' && a ? [a.storageKey] : [])));
}

export async function deleteResponse(opts: { accountId: number; actorId: number | null; formId: number; id: number }) {
  const files = await responseFiles(opts);
  const deleted = await getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(r)
      .where(and(eq(r.accountId, opts.accountId), eq(r.formId, opts.formId), eq(r.id, opts.id)))
      .returning({ id: r.id });
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'form_response_deleted', subjectType: 'form_response', subjectId: row.id, payload: { formId: opts.formId } });
    return true;
  });
  if (deleted) await removeStoredFiles(files);
  return deleted;
}

/** Display text of one answer. */
export function answerLabel(field: FormFieldDef, a: FormAnswer | undefined) {
  if (a === undefined || a === '') return '';
  if (typeof a !== 'string') return a.filename;
  if (field.type === 'consent') return 'Yes';
  return a;
}

/** Every response of the form under the list's filters, as a streamed CSV (a cursor, flat memory): one column per current field. */
export function exportResponsesCsv(opts: { accountId: number; form: Form } & ResponseFilters) {
  const where = responseWhere({ ...opts, formId: opts.form.id });
  const query = sql`
    select ${r.id} as id, ${r.createdAt} as created_at, ${r.email} as email, ${r.contactId} as contact_id, ${r.conversationId} as conversation_id, ${r.answers} as answers
    from ${r} where ${where} order by ${r.id}`;
  const fields = opts.form.fields;
  type Row = { id: number; created_at: string | Date; email: string | null; contact_id: number | null; conversation_id: number | null; answers: Record<string, FormAnswer> };
  return csvStream<Row>({
    query,
    header: ['Response', 'Submitted at', 'Email', 'Contact', 'Conversation', ...fields.map((x) => csvSafeCell(x.label))],
    toRecord: (row) => [
      row.id,
      new Date(row.created_at).toISOString(),
      csvSafeCell(row.email ?? ''),
      row.contact_id ?? '',
      row.conversation_id ?? '',
      ...fields.map((x) => csvSafeCell(answerLabel(x, row.answers?.[x.key]))),
    ],
  });
}
