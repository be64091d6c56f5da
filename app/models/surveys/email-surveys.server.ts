import crypto from 'node:crypto';
import { TZDate } from '@date-fns/tz';
import { and, asc, eq, sql } from 'drizzle-orm';
import rrulePkg from 'rrule';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { pixelPath } from '../campaigns/tracking.server';
import { previewImportFile, readFileRows, removeImportFile, sniffImportFile, storeImportFile } from '../crm/imports.server';
import type { ImportField } from '../crm/imports-constants';
import { recordChange } from '../productivity/shared.server';
import { bulkConnections, connectSentMarks, literalIdList, pooledTransport, runBulkSend, sendRawMail } from '../mail/bulk-send.server';
import { sendBulkEmail } from '../mail/mail.server';
import { getConfig } from '../../utils/env.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getLogger } from '../../utils/logger.server';
import { accountLink } from '../../utils/tenant.server';
import { faceLabel, scaleLabel, scaleOf } from './answers';
import { EMAIL_LIMITS, SURVEY_MESSAGES as M } from './constants';
import type { EmailSchedule } from './email-schemas';
import { SurveyInputError } from './folders.server';
import type { SurveyDesign, SurveyQuestion } from './types';

const { RRule } = rrulePkg as unknown as typeof import('rrule');

const s = schema.surveys;
const rc = schema.surveyEmailRecipients;
const sends = schema.surveyEmailSends;
const sched = schema.surveyEmailSchedules;

/* ------------------------------------------------------------------------------------------- recipient lists */

export type ListUploadResult = { listId: number; success: number; failed: number };

const EMAIL_PATTERN = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]+$/;

/** The fields a recipient list uses; every other column is ignored (the mapping offers only these). */
export const LIST_FIELDS = ['ignore', 'email', 'firstName', 'lastName'] as const satisfies readonly ImportField[];

async function lockDraft(tx: Tx, opts: { accountId: number; surveyId: number }) {
  const [survey] = await tx
    .select({ id: s.id, status: s.status, channel: s.channel, target: s.target })
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.surveyId)))
    .for('update');
  if (!survey || survey.channel !== 'email') throw new SurveyInputError('This survey does not exist', undefined, 404);
  if (survey.status !== 'draft') throw new SurveyInputError(M.csvNotDraft);
  return survey;
}

/**
 * Step 1 of a CSV/Excel recipient list of a draft email survey (survey-builder.md section 3 "CSV", section 7
 * "surveys/{id}/csv"): under 5 MB, a csv or xlsx file by its bytes, kept like the contact import's file until its
 * columns are mapped (step 2, mapRecipientList). A refused file writes nothing.
 */
export async function storeRecipientList(opts: { accountId: number; surveyId: number; actorId: number | null; listName: string; filename: string; bytes: Buffer }) {
  if (opts.bytes.length === 0) throw new SurveyInputError(M.csvMissing);
  if (opts.bytes.length >= EMAIL_LIMITS.csvBytes) throw new SurveyInputError(M.csvSize);
  const kind = /\.(csv|xlsx|xls)$/i.test(opts.filename) ? await sniffImportFile(opts.bytes) : null;
  if (!kind) throw new SurveyInputError(M.csvType);
  // The draft check first (no file is written for a published survey), and again when the list row is written.
  await getDb().transaction((tx) => lockDraft(tx, opts));
  const stored = await storeImportFile({ accountId: opts.accountId, kind, bytes: opts.bytes });
  if (!stored.ok) throw new SurveyInputError(stored.error);
  try {
    return await getDb().transaction(async (tx) => {
      const survey = await lockDraft(tx, opts);
      const [list] = await tx
        .insert(schema.surveyEmailLists)
        .values({ accountId: opts.accountId, surveyId: survey.id, name: opts.listName, fileName: opts.filename.slice(0, 200), status: 'mapping', storageKey: stored.storageKey, createdById: opts.actorId })
        .returning({ id: schema.surveyEmailLists.id });
      return { listId: list.id };
    });
  } catch (err) {
    await removeImportFile(stored.storageKey);
    throw err;
  }
}

async function pendingList(opts: { accountId: number; surveyId: number; listId: number }, db: DbOrTx = getDb()) {
  const l = schema.surveyEmailLists;
  const [list] = await db
    .select()
    .from(l)
    .where(and(eq(l.accountId, opts.accountId), eq(l.surveyId, opts.surveyId), eq(l.id, opts.listId)));
  return list;
}

/** A list waiting for its mapping: its file's header, first rows and the guessed fields (the contact import's guesses). */
export async function previewRecipientList(opts: { accountId: number; surveyId: number; listId: number }) {
  const list = await pendingList(opts);
  if (!list) return undefined;
  if (list.status !== 'mapping' || !list.storageKey) return { list, preview: null };
  const preview = await previewImportFile(list.storageKey);
  return { list, preview: { ...preview, guesses: preview.guesses.map((g) => ((LIST_FIELDS as readonly string[]).includes(g) ? g : 'ignore')) } };
}

/**
 * Step 2: the mapped columns make the entries. Each row with a valid address becomes an entry (once per address); the
 * rest are counted as failed; the counts are the answer ("success and failed"). The survey's target then names the list.
 * One transaction, and only while the survey is a draft; the file is removed afterwards.
 */
export async function mapRecipientList(opts: { accountId: number; surveyId: number; listId: number; actorId: number | null; mapping: readonly ImportField[] }): Promise<ListUploadResult> {
  const found = await pendingList(opts);
  if (!found) throw new SurveyInputError('This list does not exist', undefined, 404);
  if (found.status !== 'mapping' || !found.storageKey) throw new SurveyInputError(M.listMapped);
  const emailAt = opts.mapping.indexOf('email');
  if (emailAt < 0 || opts.mapping.lastIndexOf('email') !== emailAt) throw new SurveyInputError(M.listEmailColumn);
  const firstAt = opts.mapping.indexOf('firstName');
  const lastAt = opts.mapping.indexOf('lastName');
  const entries = new Map<string, string>();
  let failed = 0;
  let header = true;
  try {
    for await (const row of readFileRows(found.storageKey)) {
      if (header) {
        header = false;
        continue;
      }
      const email = (row[emailAt] ?? '').trim().toLowerCase();
      if (!EMAIL_PATTERN.test(email) || email.length > 320 || entries.has(email)) {
        failed++;
        continue;
      }
      entries.set(email, [firstAt >= 0 ? row[firstAt] : '', lastAt >= 0 ? row[lastAt] : ''].join(' ').trim().slice(0, 200));
    }
  } catch {
    throw new SurveyInputError('The file could not be read as CSV or Excel.');
  }
  const result = await getDb().transaction(async (tx) => {
    const survey = await lockDraft(tx, opts);
    const l = schema.surveyEmailLists;
    const [list] = await tx
      .update(l)
      .set({ status: 'ready', storageKey: null, successCount: entries.size, failedCount: failed })
      .where(and(eq(l.accountId, opts.accountId), eq(l.id, found.id), eq(l.status, 'mapping')))
      .returning({ id: l.id });
    if (!list) throw new SurveyInputError(M.listMapped);
    const all = [...entries];
    for (let i = 0; i < all.length; i += 5000) {
      await tx
        .insert(schema.surveyEmailListEntries)
        .values(all.slice(i, i + 5000).map(([email, name]) => ({ accountId: opts.accountId, listId: list.id, email, name })));
    }
    await tx
      .update(s)
      .set({ target: { ...survey.target, audience: 'csv', listId: list.id, tagIds: [] }, updatedAt: new Date(), updatedById: opts.actorId })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, survey.id)));
    await recordChange(tx, {
      accountId: opts.accountId,
      actorId: opts.actorId,
      type: 'survey_updated',
      subjectType: 'survey',
      subjectId: survey.id,
      payload: { step: 'target', changed: ['recipientList'], listId: list.id, success: entries.size, failed },
    });
    return { listId: list.id, success: entries.size, failed };
  });
  await removeImportFile(found.storageKey);
  return result;
}

/** Both steps at once with the guessed mapping (the columns named like the contact import's: email, name...). */
export async function uploadRecipientList(opts: { accountId: number; surveyId: number; actorId: number | null; listName: string; filename: string; bytes: Buffer }): Promise<ListUploadResult> {
  const { listId } = await storeRecipientList(opts);
  const preview = await previewRecipientList({ ...opts, listId });
  return mapRecipientList({ ...opts, listId, mapping: (preview?.preview?.guesses ?? []) as ImportField[] });
}

export async function listRecipientLists(opts: { accountId: number; surveyId: number }) {
  const l = schema.surveyEmailLists;
  return getDb()
    .select({ id: l.id, name: l.name, fileName: l.fileName, status: l.status, successCount: l.successCount, failedCount: l.failedCount, createdAt: l.createdAt })
    .from(l)
    .where(and(eq(l.accountId, opts.accountId), eq(l.surveyId, opts.surveyId)))
    .orderBy(asc(l.id));
}

/* ------------------------------------------------------------------------------------------- schedule */

export async function getEmailSchedule(opts: { accountId: number; surveyId: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(sched)
    .where(and(eq(sched.accountId, opts.accountId), eq(sched.surveyId, opts.surveyId)));
  return row ?? null;
}

/** The wall-clock parts of an instant in a zone, as a "floating" Date whose UTC fields are those parts (rrule's way). */
function floating(at: Date, zone: string) {
  const z = new TZDate(at.getTime(), zone);
  return new Date(Date.UTC(z.getFullYear(), z.getMonth(), z.getDate(), z.getHours(), z.getMinutes(), z.getSeconds()));
}
/** The instant of a floating wall-clock time in a zone (DST applied: 09:00 stays 09:00 across a change). */
function instant(f: Date, zone: string) {
  return new Date(new TZDate(f.getUTCFullYear(), f.getUTCMonth(), f.getUTCDate(), f.getUTCHours(), f.getUTCMinutes(), f.getUTCSeconds(), zone).getTime());
}

/** The schedule's rule as RFC 5545 text: a floating DTSTART (the zone is beside it) and every N days. */
export function ruleText(opts: { start: Date; zone: string; intervalDays: number }) {
  const rule = new RRule({ freq: RRule.DAILY, interval: opts.intervalDays, dtstart: floating(opts.start, opts.zone) });
  return rule.toString();
}

/**
 * The first occurrence strictly after `after` of a schedule (its rule read in its zone), or null when it has none
 * (a one-off whose time is past).
 */
export function nextOccurrence(schedule: { rrule: string | null; timezone: string | null }, after: Date): Date | null {
  if (!schedule.rrule) return null;
  const zone = schedule.timezone ?? 'UTC';
  const rule = RRule.fromString(schedule.rrule);
  const next = rule.after(floating(after, zone), false);
  return next ? instant(next, zone) : null;
}

/** Saves the Settings step's schedule (a draft or a published survey: the next publish applies it). */
export async function saveEmailSchedule(tx: Tx, opts: { accountId: number; surveyId: number; schedule: EmailSchedule }) {
  const v = { ...opts.schedule, updatedAt: new Date() };
  await tx
    .insert(sched)
    .values({ accountId: opts.accountId, surveyId: opts.surveyId, ...v })
    .onConflictDoUpdate({ target: sched.surveyId, set: v, where: eq(sched.accountId, opts.accountId) });
}

/** The Settings step's save: writes the schedule when it differs from the stored one; says whether it did. */
export async function updateEmailSchedule(opts: { accountId: number; surveyId: number; schedule: EmailSchedule }) {
  const before = scheduleFormValues(await getEmailSchedule(opts));
  if (JSON.stringify(before) === JSON.stringify(scheduleFormValues(opts.schedule))) return false;
  await getDb().transaction((tx) => saveEmailSchedule(tx, opts));
  return true;
}

export function scheduleFormValues(row: Pick<EmailSchedule, 'sendLater' | 'sendAt' | 'timezone' | 'recurring' | 'intervalDays'> | null) {
  if (!row) return { sendLater: false, recurring: false };
  const [date, time] = (row.sendAt ?? '').split('T');
  const preset = ['7', '30', '60'].includes(String(row.intervalDays)) ? String(row.intervalDays) : row.intervalDays ? 'custom' : undefined;
  return {
    sendLater: row.sendLater,
    sendDate: date || undefined,
    sendTime: time || undefined,
    timezone: row.timezone ?? undefined,
    recurring: row.recurring,
    interval: preset,
    customDays: preset === 'custom' ? row.intervalDays : undefined,
  };
}

/**
 * Called by publishSurvey in its transaction for an email survey: the first occurrence becomes a timer job at its
 * exact time (now for "send now"), and a new generation makes any job of an earlier publish do nothing.
 */
export async function scheduleEmailSurvey(tx: Tx, opts: { accountId: number; surveyId: number; now?: Date }) {
  const now = opts.now ?? new Date();
  const row = await getEmailSchedule(opts, tx);
  const zone = row?.sendLater && row.timezone ? row.timezone : 'UTC';
  let first = now;
  if (row?.sendLater && row.sendAt) {
    const [d, t] = row.sendAt.split('T');
    const [y, mo, da] = d.split('-').map(Number);
    const [h, mi] = t.split(':').map(Number);
    first = instant(new Date(Date.UTC(y, mo - 1, da, h, mi)), zone);
  }
  const rule = row?.recurring && row.intervalDays ? ruleText({ start: first, zone, intervalDays: row.intervalDays }) : null;
  // A time already past: a one-off goes now; a recurrence starts at its next occurrence from now (or now, when it is its start).
  if (first.getTime() < now.getTime() - 60_000 && rule) first = nextOccurrence({ rrule: rule, timezone: zone }, new Date(now.getTime() - 1000)) ?? now;
  else if (first.getTime() < now.getTime()) first = now;
  const [saved] = await tx
    .insert(sched)
    .values({ accountId: opts.accountId, surveyId: opts.surveyId, rrule: rule, timezone: row?.timezone ?? null, generation: 1, nextRunAt: first })
    .onConflictDoUpdate({ target: sched.surveyId, set: { rrule: rule, generation: sql`${sched.generation} + 1`, nextRunAt: first, updatedAt: new Date() } })
    .returning({ generation: sched.generation });
  await enqueueInTx(
    tx,
    QUEUES.surveyEmailOccurrence,
    { accountId: opts.accountId, surveyId: opts.surveyId, generation: saved.generation, at: first.toISOString() },
    { startAfter: first, singletonKey: `${opts.surveyId}:${saved.generation}:${first.toISOString()}` },
  );
  return { firstAt: first, generation: saved.generation };
}

/** Stops future occurrences (a survey closed or deleted): the waiting timer finds a newer generation and does nothing. */
export async function cancelEmailSchedule(tx: Tx, opts: { accountId: number; surveyId: number }) {
  await tx
    .update(sched)
    .set({ generation: sql`${sched.generation} + 1`, nextRunAt: null })
    .where(and(eq(sched.accountId, opts.accountId), eq(sched.surveyId, opts.surveyId)));
}

/**
 * A timer job: one occurrence. Creates the occurrence's send (once: unique per survey and time), enqueues the next
 * occurrence of a recurrence and the send itself, all in one transaction. A stale generation or a survey that is no
 * longer published does nothing.
 */
export async function runEmailOccurrence(opts: { accountId: number; surveyId: number; generation: number; at: string }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(sched)
      .where(and(eq(sched.accountId, opts.accountId), eq(sched.surveyId, opts.surveyId)))
      .for('update');
    if (!row || row.generation !== opts.generation) return { skipped: 'superseded' };
    const [survey] = await tx
      .select({ status: s.status })
      .from(s)
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.surveyId)));
    if (!survey || survey.status !== 'published') return { skipped: 'not published' };
    const at = new Date(opts.at);
    const [send] = await tx
      .insert(sends)
      .values({ accountId: opts.accountId, surveyId: opts.surveyId, occurrenceAt: at })
      .onConflictDoNothing()
      .returning({ id: sends.id });
    if (!send) return { skipped: 'already sent' };
    const next = nextOccurrence(row, at);
    await tx.update(sched).set({ nextRunAt: next }).where(eq(sched.surveyId, opts.surveyId));
    if (next)
      await enqueueInTx(
        tx,
        QUEUES.surveyEmailOccurrence,
        { accountId: opts.accountId, surveyId: opts.surveyId, generation: row.generation, at: next.toISOString() },
        { startAfter: next, singletonKey: `${opts.surveyId}:${row.generation}:${next.toISOString()}` },
      );
    await enqueueInTx(tx, QUEUES.surveyEmailSend, { accountId: opts.accountId, sendId: send.id });
    return { sendId: send.id, next: next?.toISOString() ?? null };
  });
}

/* ------------------------------------------------------------------------------------------- sending */

/** Recipients resolved per statement (ADR 084): the first slice is mailed while the next ones are resolved. */
const RESOLVE_SLICE = 5_000;

/**
 * One slice of the occurrence's recipients as they are now: contacts with any of the tags (and an address), or the
 * uploaded list's entries, after the send's cursor in id order; unsubscribed and bounced addresses left out; once per
 * address (the unique (send, email) key: the lowest contact id keeps it). Runs under the send row's lock and moves the
 * cursor in the same transaction, so a send killed while resolving carries on where it stopped, and two workers of one
 * send resolve alternate slices, never the same one. The last (short) slice moves the send to `sending`.
 */
async function resolveSlice(opts: { accountId: number; surveyId: number; sendId: number; tagIds: number[]; listId: number | null }) {
  return getDb().transaction(async (tx) => {
    const [locked] = await tx
      .select({ status: sends.status, through: sends.resolvedThrough })
      .from(sends)
      .where(and(eq(sends.accountId, opts.accountId), eq(sends.id, opts.sendId)))
      .for('update');
    if (!locked || locked.status !== 'resolving') return { done: true, inserted: 0 };
    const suppressed = sql`not exists (select 1 from email_suppressions x where x.account_id = ${opts.accountId} and x.email = src.email)`;
    const token = sql`replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')`;
    let source;
    if (opts.listId) {
      source = sql`select e.id as key, e.email, e.name, null::integer as contact_id from survey_email_list_entries e
        where e.account_id = ${opts.accountId} and e.list_id = ${opts.listId} and e.id > ${locked.through}
        order by e.id limit ${RESOLVE_SLICE}`;
    } else if (opts.tagIds.length) {
      const ids = sql.join(
        opts.tagIds.map((id) => sql`${id}`),
        sql`, `,
      );
      source = sql`select c.id as key, lower(c.email) as email, trim(concat_ws(' ', c.first_name, c.last_name)) as name, c.id as contact_id
        from contacts c where c.account_id = ${opts.accountId} and c.id > ${locked.through} and c.email is not null and c.email <> ''
        and exists (select 1 from contact_tags ct where ct.account_id = ${opts.accountId} and ct.contact_id = c.id and ct.tag_id in (${ids}))
        order by c.id limit ${RESOLVE_SLICE}`;
    } else {
      source = sql`select 0::bigint as key, ''::text as email, ''::text as name, null::integer as contact_id where false`;
    }
    const [row] = await tx.execute<{ seen: number; last: number | null; inserted: number }>(sql`
      with src as materialized (${source}),
      ins as (
        insert into survey_email_recipients (account_id, survey_id, send_id, email, name, contact_id, token)
        select ${opts.accountId}, ${opts.surveyId}, ${opts.sendId}, src.email, src.name, src.contact_id, ${token}
        from src where ${suppressed} order by src.key
        on conflict do nothing returning 1)
      select (select count(*) from src)::int as seen, (select max(key) from src)::bigint as last, (select count(*) from ins)::int as inserted`);
    const done = Number(row.seen) < RESOLVE_SLICE;
    await tx
      .update(sends)
      .set({
        resolvedThrough: row.last === null ? locked.through : Number(row.last),
        total: sql`${sends.total} + ${Number(row.inserted)}`,
        ...(done ? { status: 'sending' as const } : {}),
      })
      .where(and(eq(sends.accountId, opts.accountId), eq(sends.id, opts.sendId)));
    return { done, inserted: Number(row.inserted) };
  });
}

const replacePlaceholders = (text: string, r: { name: string; email: string }) => text.replaceAll('{{NAME}}', r.name || r.email).replaceAll('{{EMAIL}}', r.email);
const escapeHtml = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type RenderInput = {
  accountId: number;
  domain: string;
  surveyName: string;
  uniqueId: string;
  hasLogo: boolean;
  design: SurveyDesign;
  first: SurveyQuestion | undefined;
};

/** Section 2's email: logo, header, sub-header, the first question with its scores as links, footer; a text part. */
export function renderSurveyEmail(input: RenderInput, r: { id: number; name: string; email: string; token: string }) {
  const link = (path: string) => accountLink(input.domain, path);
  const answerUrl = (v?: number) => link(`/survey/email/${input.accountId}/${r.token}${v === undefined ? '' : `?a=${v}`}`);
  const unsubscribe = link(`/survey/unsubscribe/${input.accountId}/${r.token}`);
  // The shared open pixel (ADR 094): "opened" when the pictures load, else when the first answer comes.
  const pixel = link(pixelPath({ accountId: input.accountId, recipientId: r.id, survey: true }));
  const d = input.design;
  const subject = replacePlaceholders(d.subject, r);
  const header = replacePlaceholders(d.header, r);
  const sub = replacePlaceholders(d.subHeader, r);
  const q = input.first?.type === 'welcome' ? undefined : input.first;
  const range = q ? scaleOf(q) : null;
  const scale = q && range
    ? {
        values: Array.from({ length: range.max - range.min + 1 }, (_, i) => range.min + i),
        labels: Array.from({ length: range.max - range.min + 1 }, (_, i) =>
          q.type === 'smiley' || q.type === 'csat' ? faceLabel(range.max, range.min + i) : scaleLabel(q, range.min + i),
        ),
      }
    : null;
  const brand = /^#[0-9a-f]{6}$/i.test(d.brandColor) ? d.brandColor : '#2287FB';
  const buttons = scale
    ? scale.values
        .map(
          (v, i) =>
            `<a href="${escapeHtml(answerUrl(v))}" style="display:inline-block;min-width:32px;padding:8px 10px;margin:2px;border:1px solid ${brand};border-radius:6px;color:${brand};text-decoration:none;font-weight:bold" title="${escapeHtml(scale.labels[i] ?? String(v))}">${escapeHtml(scale.labels[i] ?? String(v))}</a>`,
        )
        .join('')
    : `<a href="${escapeHtml(answerUrl())}" style="display:inline-block;padding:10px 18px;background:${brand};color:#fff;border-radius:6px;text-decoration:none">Start the survey</a>`;
  const html = `<!doctype html><html><body style="margin:0;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1d2433">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#fff;border-radius:8px;padding:24px">
${input.hasLogo ? `<tr><td><img src="${escapeHtml(link(`/survey/logo/${input.accountId}/${input.uniqueId}`))}" alt="" height="40"></td></tr>` : ''}
<tr><td><h1 style="font-size:20px">${escapeHtml(header)}</h1>${sub ? `<p>${escapeHtml(sub)}</p>` : ''}</td></tr>
${q ? `<tr><td><p style="font-weight:bold">${escapeHtml(q.question)}</p></td></tr>` : ''}
<tr><td style="padding:8px 0">${buttons}</td></tr>
${d.footer ? `<tr><td><p style="color:#555;font-size:13px">${escapeHtml(d.footer)}</p></td></tr>` : ''}
<tr><td><p style="color:#777;font-size:12px">You received this survey from ${escapeHtml(input.surveyName)}. <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p></td></tr>
</table></td></tr></table><img src="${escapeHtml(pixel)}" width="1" height="1" alt="" style="display:block;border:0"></body></html>`;
  const lines = [header, sub, '', q ? q.question : '', ''];
  if (scale) for (const [i, v] of scale.values.entries()) lines.push(`${scale.labels[i] ?? v}: ${answerUrl(v)}`);
  else lines.push(`Start the survey: ${answerUrl()}`);
  if (d.footer) lines.push('', d.footer);
  lines.push('', `Unsubscribe: ${unsubscribe}`);
  return {
    subject,
    html,
    text: lines.filter((l, i, a) => !(l === '' && a[i - 1] === '')).join('\n'),
    headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** Per account, at most this many survey emails a second (PARLEY_SURVEY_EMAIL_RATE, 400 by default). */
const surveyRate = () => Number(process.env.PARLEY_SURVEY_EMAIL_RATE ?? 400) || 400;

/** A claimed row still in `sending` after this long belongs to a send that died: it is claimed again (ADR 084). */
const LEASE_MS = 30_000;
/** Recipients per claim; the shared loop claims the next chunk while this one is on the wire. */
const CLAIM = 50;
/** A send job works this long, then hands on to a fresh job (well within its queue's expiry). */
const SLICE_MS = 40_000;

type Claimed = { id: number; email: string; name: string; token: string; suppressed: boolean };

/** A survey email's Message-ID: the recipient's token at the account's host (bounces find the recipient by it; `sentMarkStatement` writes the same). */
const messageIdOf = (token: string, host: string) => `<survey-${token}@${host}>`;

/** Marks these recipients sent with their Message-ID (only rows still `sending`), as text for the marks connection. */
export function sentMarkStatement(accountId: number, host: string, ids: number[]) {
  const a = Number(accountId);
  if (!Number.isSafeInteger(a)) throw new Error('the account id is not an integer');
  return `update survey_email_recipients set status = 'sent', sent_at = now(), message_id = '<survey-' || token || '@${host.replace(/'/g, "''")}>'
    where account_id = ${a} and id in (${literalIdList(ids)}) and status = 'sending'`;
}

/**
 * Sends one occurrence through the shared bulk-send loop (ADR 084): the recipients are resolved in slices of 5,000
 * while the first slice is already being mailed; each recipient is claimed once (queued → sending, skip locked, so
 * several workers share a send), mailed from the survey's verified sender with a stable Message-ID, and marked sent
 * as the message's end is written (over SMTP: the end and the mark leave in one turn, ADR 084 addendum 3, so a SIGKILL
 * can repeat a mail only in the microseconds between two writes, never lose one; the claims a live run holds are renewed
 * well within their lease). A send killed half way resumes with the rows not yet sent. Suppressed addresses
 * (unsubscribed or bounced meanwhile) are skipped.
 */
export async function runEmailSend(opts: { accountId: number; sendId: number; sliceMs?: number }) {
  const db = getDb();
  const [send] = await db
    .select()
    .from(sends)
    .where(and(eq(sends.accountId, opts.accountId), eq(sends.id, opts.sendId)));
  if (!send || send.status === 'done') return { done: true, sent: 0 };
  const [survey] = await db
    .select({
      id: s.id,
      name: s.name,
      uniqueId: s.uniqueId,
      versionId: s.publishedVersionId,
      domain: schema.accounts.domain,
    })
    .from(s)
    .innerJoin(schema.accounts, eq(schema.accounts.id, s.accountId))
    .where(and(eq(s.accountId, opts.accountId), eq(s.id, send.surveyId)));
  if (!survey?.versionId) return { done: true, sent: 0 };
  const [version] = await db
    .select()
    .from(schema.surveyVersions)
    .where(and(eq(schema.surveyVersions.accountId, opts.accountId), eq(schema.surveyVersions.id, survey.versionId)));

  // Resolving runs beside the sending: slice after slice until the source is exhausted; a claim that finds nothing
  // while slices remain waits for the next one.
  let resolving: Promise<void> | null = null;
  let resolved = send.status !== 'resolving';
  let resolveError: unknown = null;
  const resolveAll = () =>
    (resolving ??= (async () => {
      try {
        while (!resolved) {
          const r = await resolveSlice({
            accountId: opts.accountId,
            surveyId: survey.id,
            sendId: send.id,
            tagIds: version.target.audience === 'csv' ? [] : version.target.tagIds,
            listId: version.target.audience === 'csv' ? (version.target.listId ?? null) : null,
          });
          if (r.done) resolved = true;
          else await new Promise((res) => setImmediate(res));
        }
      } catch (err) {
        resolveError = err;
        resolved = true;
      }
    })());
  if (!resolved) void resolveAll();

  const render: RenderInput = {
    accountId: opts.accountId,
    domain: survey.domain,
    surveyName: survey.name,
    uniqueId: survey.uniqueId,
    hasLogo: !!version.logoAttachmentId,
    design: version.design,
    first: [...version.questions].sort((a, b) => a.order - b.order).find((q) => q.type !== 'welcome'),
  };
  const host = new URL(accountLink(survey.domain)).hostname;
  const from = version.design.sendFrom;
  const { smtpUrl } = getConfig();
  const transport = smtpUrl ? pooledTransport(smtpUrl) : null;
  const ids = (list: number[]) =>
    sql.join(
      list.map((id) => sql`${id}`),
      sql`, `,
    );

  const claimRows = async (limit: number) =>
    [
      ...(await db.execute<Claimed>(sql`
      update survey_email_recipients r set status = 'sending', claimed_at = now()
      where r.account_id = ${opts.accountId} and r.id in (
        select id from survey_email_recipients
        where account_id = ${opts.accountId} and send_id = ${send.id}
          and (status = 'queued' or (status = 'sending' and claimed_at < now() - make_interval(secs => ${LEASE_MS / 1000})))
        order by id limit ${limit} for update skip locked)
      returning r.id, r.email, r.name, r.token,
        exists (select 1 from email_suppressions x where x.account_id = ${opts.accountId} and x.email = r.email) as suppressed`)),
    ].map((r) => ({ ...r, id: Number(r.id) }));

  const stats = await runBulkSend<Claimed>(
    {
      accountId: opts.accountId,
      claim: async (limit) => {
        for (;;) {
          const rows = await claimRows(limit);
          if (rows.length || resolved) return rows;
          await Promise.race([resolving, new Promise((res) => setTimeout(res, 100))]);
        }
      },
      skip: (r) => r.suppressed,
      markSkipped: async (list) => {
        await db.execute(sql`update survey_email_recipients set status = 'skipped' where account_id = ${opts.accountId} and id in (${ids(list)})`);
      },
      deliver: async (r, held) => {
        const mail = renderSurveyEmail(render, r);
        const messageId = messageIdOf(r.token, host);
        if (!transport) {
          await sendBulkEmail({ accountId: opts.accountId, from, to: r.email, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers, messageId });
          return { messageId };
        }
        return sendRawMail(transport, { from, to: r.email, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers, messageId }, held);
      },
      // The Message-ID is the token's (`messageIdOf`): one statement for both ways of marking.
      markSent: async (rows) => {
        await db.execute(sql.raw(sentMarkStatement(opts.accountId, host, rows.map((d) => d.id))));
      },
      // Held ends' marks (ADR 084 addendum 3): one statement, literal ids, on the loop's own connection.
      syncMarks: transport ? { connect: connectSentMarks, text: (list) => sentMarkStatement(opts.accountId, host, list) } : undefined,
      extendClaims: async (list) => {
        await db.execute(sql`update survey_email_recipients set claimed_at = now() where account_id = ${opts.accountId} and id in (${ids(list)}) and status = 'sending'`);
      },
      unmarkSent: async (list) => {
        await db.execute(sql`update survey_email_recipients set status = 'sending', sent_at = null where account_id = ${opts.accountId} and id in (${ids(list)}) and status = 'sent'`);
      },
      // A refusal (5xx) is final; anything else goes back to the queue and the job retries.
      isRefusal: (err) => /^5\d\d$/.test(String((err as { responseCode?: number }).responseCode ?? '')),
      markRefused: async (r, err) => {
        getLogger().warn({ err: err.message, sendId: send.id }, 'survey email refused');
        await db.execute(sql`update survey_email_recipients set status = 'failed', error = ${err.message.slice(0, 500)} where account_id = ${opts.accountId} and id = ${r.id}`);
      },
      release: async (list) => {
        await db.execute(sql`update survey_email_recipients set status = 'queued', claimed_at = null where account_id = ${opts.accountId} and id in (${ids(list)}) and status = 'sending'`);
      },
    },
    {
      rateKey: `survey:${opts.accountId}`,
      ratePerSecond: surveyRate(),
      claimSize: CLAIM,
      lanes: bulkConnections(),
      sliceMs: opts.sliceMs ?? SLICE_MS,
      claimHeartbeatMs: LEASE_MS / 3,
    },
  ).finally(async () => {
    resolved = true;
    await resolving;
  });
  if (resolveError) throw resolveError;
  if (!stats.exhausted) {
    // Hand on: a new job carries on (the claim makes two runs share the rows safely).
    await db.transaction((tx) => enqueueInTx(tx, QUEUES.surveyEmailSend, { accountId: opts.accountId, sendId: send.id }));
    return { done: false, sent: stats.sent };
  }
  const [{ waiting }] = await db
    .select({ waiting: sql<number>`count(*)::int` })
    .from(rc)
    .where(and(eq(rc.accountId, opts.accountId), eq(rc.sendId, send.id), sql`${rc.status} in ('queued', 'sending')`));
  if (waiting === 0) {
    const [{ skipped }] = await db
      .select({ skipped: sql<number>`count(*)::int` })
      .from(rc)
      .where(and(eq(rc.accountId, opts.accountId), eq(rc.sendId, send.id), eq(rc.status, 'skipped')));
    await db
      .update(sends)
      .set({ status: 'done', finishedAt: new Date(), skipped })
      .where(and(eq(sends.accountId, opts.accountId), eq(sends.id, send.id), eq(sends.status, 'sending')));
  } else {
    // Rows another worker holds (or a dead one left): a job after the lease takes whatever is still not sent.
    await db.transaction((tx) =>
      enqueueInTx(tx, QUEUES.surveyEmailSend, { accountId: opts.accountId, sendId: send.id }, { startAfter: new Date(Date.now() + LEASE_MS + 1000) }),
    );
  }
  return { done: waiting === 0, sent: stats.sent };
}

/* ------------------------------------------------------------------------------------------- recipients' actions */

export const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

export async function findRecipient(opts: { accountId: number; token: string }) {
  if (!TOKEN_PATTERN.test(opts.token)) return null;
  const [row] = await getDb()
    .select()
    .from(rc)
    .where(and(eq(rc.accountId, opts.accountId), eq(rc.token, opts.token)));
  return row ?? null;
}

/** Opened: the first visit of the personal link (a score clicked, or the survey opened). Never moves a status back. */
export async function markRecipientOpened(opts: { accountId: number; id: number }) {
  return !!(await getDb().execute(sql`update survey_email_recipients set status = case when status in ('sent', 'sending', 'queued') then 'opened' else status end,
    opened_at = coalesce(opened_at, now()) where account_id = ${opts.accountId} and id = ${opts.id}`)).count;
}

export async function markRecipientResponded(opts: { accountId: number; id: number }) {
  await getDb().execute(sql`update survey_email_recipients set status = 'responded', responded_at = coalesce(responded_at, now()),
    opened_at = coalesce(opened_at, now()) where account_id = ${opts.accountId} and id = ${opts.id}`);
}

/** One-click unsubscribe (RFC 8058) and the link's page: the address is never mailed a survey by this account again. */
export async function unsubscribeRecipient(opts: { accountId: number; token: string }) {
  const r = await findRecipient(opts);
  if (!r) return null;
  await getDb().insert(schema.emailSuppressions).values({ accountId: opts.accountId, email: r.email, reason: 'unsubscribed' }).onConflictDoNothing();
  return r;
}

/** A bounce (the inbound path's delivery report) naming a survey email: the recipient is marked and the address suppressed. */
export async function markSurveyBounces(opts: { accountId: number; messageIds: string[] }) {
  if (opts.messageIds.length === 0) return 0;
  const ids = opts.messageIds.map((m) => (m.startsWith('<') ? m : `<${m}>`));
  const rows = await getDb().execute<{ email: string }>(sql`update survey_email_recipients set status = 'bounced'
    where account_id = ${opts.accountId} and message_id in (${sql.join(
      ids.map((i) => sql`${i}`),
      sql`, `,
    )}) returning email`);
  for (const r of rows)
    await getDb().insert(schema.emailSuppressions).values({ accountId: opts.accountId, email: r.email, reason: 'bounced' }).onConflictDoNothing();
  return rows.length;
}

/** The delivery figures on the results page: per status, and the response rate of the mails that went out. */
export async function emailDeliveryStats(opts: { accountId: number; surveyId: number }) {
  const rows = await getDb()
    .select({ status: rc.status, n: sql<number>`count(*)::int` })
    .from(rc)
    .where(and(eq(rc.accountId, opts.accountId), eq(rc.surveyId, opts.surveyId)))
    .groupBy(rc.status);
  const by = Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
  const delivered = (by.sent ?? 0) + (by.opened ?? 0) + (by.responded ?? 0);
  const total = rows.reduce((n, r) => n + r.n, 0);
  return { by, delivered, total, responseRate: delivered ? (by.responded ?? 0) / delivered : 0 };
}

export async function listRecipients(opts: { accountId: number; surveyId: number; limit?: number; offset?: number }) {
  return getDb()
    .select({ id: rc.id, email: rc.email, name: rc.name, status: rc.status, sentAt: rc.sentAt, openedAt: rc.openedAt, respondedAt: rc.respondedAt })
    .from(rc)
    .where(and(eq(rc.accountId, opts.accountId), eq(rc.surveyId, opts.surveyId)))
    .orderBy(sql`${rc.id} desc`)
    .limit(opts.limit ?? 20)
    .offset(opts.offset ?? 0);
}

export const randomToken = () => crypto.randomBytes(32).toString('hex');
