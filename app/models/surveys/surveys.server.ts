import crypto from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { recordChange } from '../productivity/shared.server';
import { scheduleEmailSurvey } from './email-surveys.server';
import {
  DEFAULT_BRAND_COLOR,
  DEFAULT_MESSAGES,
  DEFAULT_THEME,
  DESIGN_DEFAULTS,
  LIMITS,
  STARTER_QUESTION,
  SURVEY_PAGE_SIZE,
  type SurveyChannel,
  type SurveyLanguage,
  type SurveyStatus,
  type SurveySubType,
} from './constants';
import { ensureDefaultFolder, folderVisible, getFolder, SurveyInputError, type Viewer } from './folders.server';
import { starterQuestions } from './questions.server';
import { questionListSchema } from './schemas';
import type { SurveyDesign, SurveyMessages, SurveyQuestion, SurveyTarget } from './types';

export { SurveyInputError };
export type Survey = typeof schema.surveys.$inferSelect;
const s = schema.surveys;
const f = schema.surveyFolders;

/** A random key for the public link (ADR 053): 16 characters of [a-z0-9], never derived from the row id. */
export function newUniqueId() {
  return BigInt(`0x${crypto.randomBytes(12).toString('hex')}`).toString(36).padStart(16, '0').slice(-16);
}

export function defaultDesign(channel: SurveyChannel, sendFrom = ''): SurveyDesign {
  return {
    themeType: DEFAULT_THEME[channel],
    position: 'left',
    brandColor: DEFAULT_BRAND_COLOR,
    showQuestionNumber: true,
    indicateMandatory: true,
    showBranding: true,
    showProgressBar: channel !== 'email',
    footer: '',
    subject: DESIGN_DEFAULTS.subject,
    header: DESIGN_DEFAULTS.header,
    subHeader: DESIGN_DEFAULTS.subHeader,
    sendFrom,
  };
}

export function defaultTarget(): SurveyTarget {
  return {
    showOnAllPages: true,
    allowedPages: null,
    displayMethod: 'instant',
    displayDelay: null,
    displayScroll: null,
    showUntilResponded: true,
    allowRetaking: false,
    refreshOnCompletion: false,
    tagIds: [],
  };
}

/** JSON with sorted keys: PostgreSQL's jsonb does not keep key order, so "changed?" compares this. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

export type SurveyFilters = { q?: string; status?: SurveyStatus; channel?: SurveyChannel; folderId?: number; page?: number };

/** The list (section 2): newest change first, filtered by text, status, channel and folder; only folders the viewer sees. */
export async function listSurveys(opts: { accountId: number; viewer: Viewer } & SurveyFilters, db: DbOrTx = getDb()) {
  const where: SQL[] = [eq(s.accountId, opts.accountId), folderVisible(opts.viewer)];
  if (opts.q) where.push(sql`${s.name} ilike ${`%${opts.q.replace(/[\\%_]/g, (x) => `\\${x}`)}%`}`);
  if (opts.status) where.push(eq(s.status, opts.status));
  if (opts.channel) where.push(eq(s.channel, opts.channel));
  if (opts.folderId) where.push(eq(s.folderId, opts.folderId));
  const page = Math.max(1, opts.page ?? 1);
  const pageSize = SURVEY_PAGE_SIZE;
  const u = schema.users;
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        id: s.id,
        name: s.name,
        channel: s.channel,
        subType: s.subType,
        status: s.status,
        folderId: s.folderId,
        folderName: f.name,
        uniqueId: s.uniqueId,
        questionCount: sql<number>`jsonb_array_length(${s.questions})`,
        updatedAt: s.updatedAt,
        publishedAt: s.publishedAt,
        createdBy: sql<string | null>`(select trim(${u.firstName} || ' ' || ${u.lastName}) from ${u} where ${u.id} = ${s.createdById} and ${u.accountId} = ${s.accountId})`,
      })
      .from(s)
      .innerJoin(f, and(eq(f.id, s.folderId), eq(f.accountId, s.accountId)))
      .where(and(...where))
      .orderBy(desc(s.updatedAt), desc(s.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ total: sql<number>`count(*)::int` })
      .from(s)
      .innerJoin(f, and(eq(f.id, s.folderId), eq(f.accountId, s.accountId)))
      .where(and(...where)),
  ]);
  return { rows, total, page, pageSize };
}

/** One survey of the account (and, with a viewer, only in a folder they see); undefined otherwise. */
export async function getSurvey(opts: { accountId: number; id: number; viewer?: Viewer }, db: DbOrTx = getDb()): Promise<Survey | undefined> {
  const [row] = await db
    .select({ survey: s })
    .from(s)
    .innerJoin(f, and(eq(f.id, s.folderId), eq(f.accountId, s.accountId)))
    .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id), opts.viewer ? folderVisible(opts.viewer) : sql`true`));
  return row?.survey;
}

async function requireFolder(tx: Tx, opts: { accountId: number; folderId: number; viewer?: Viewer }) {
  await ensureDefaultFolder(opts, tx);
  const folder = await getFolder({ accountId: opts.accountId, id: opts.folderId, viewer: opts.viewer }, tx);
  if (!folder) throw new SurveyInputError('Must select a Folder.', 'folderId');
  return folder;
}

export async function createSurvey(opts: {
  accountId: number;
  actorId: number | null;
  viewer?: Viewer;
  name: string;
  folderId: number;
  subType: SurveySubType;
  channel: SurveyChannel;
  sendFrom?: string;
}) {
  return getDb().transaction(async (tx) => {
    await requireFolder(tx, opts);
    const [row] = await tx
      .insert(s)
      .values({
        accountId: opts.accountId,
        uniqueId: newUniqueId(),
        name: opts.name.trim(),
        folderId: opts.folderId,
        channel: opts.channel,
        subType: opts.subType,
        design: defaultDesign(opts.channel, opts.sendFrom),
        messages: { ...DEFAULT_MESSAGES },
        questions: starterQuestions(STARTER_QUESTION[opts.subType]),
        target: defaultTarget(),
        createdById: opts.actorId,
        updatedById: opts.actorId,
      })
      .returning();
    await recordChange(tx, {
      ...opts,
      type: 'survey_created',
      subjectType: 'survey',
      subjectId: row.id,
      payload: { name: row.name, channel: row.channel, subType: row.subType },
    });
    return row;
  });
}

/** A draft copy in the same folder: same content, a new public key, no published version. */
export async function cloneSurvey(opts: { accountId: number; actorId: number | null; id: number; viewer?: Viewer }) {
  return getDb().transaction(async (tx) => {
    const src = await getSurvey(opts, tx);
    if (!src) return undefined;
    const name = `Copy of ${src.name}`.slice(0, LIMITS.surveyName.max);
    const [row] = await tx
      .insert(s)
      .values({
        accountId: opts.accountId,
        uniqueId: newUniqueId(),
        name,
        folderId: src.folderId,
        channel: src.channel,
        subType: src.subType,
        language: src.language,
        allowPartialSubmission: src.allowPartialSubmission,
        responseLimit: src.responseLimit,
        cutOffDate: null,
        logoAttachmentId: src.logoAttachmentId,
        design: src.design,
        messages: src.messages,
        questions: src.questions,
        target: src.target,
        createdById: opts.actorId,
        updatedById: opts.actorId,
      })
      .returning();
    await recordChange(tx, { ...opts, type: 'survey_created', subjectType: 'survey', subjectId: row.id, payload: { name, clonedFrom: src.id } });
    return row;
  });
}

export async function deleteSurvey(opts: { accountId: number; actorId: number | null; id: number; viewer?: Viewer }) {
  return getDb().transaction(async (tx) => {
    const found = await getSurvey(opts, tx);
    if (!found) return false;
    await tx.delete(s).where(and(eq(s.accountId, opts.accountId), eq(s.id, found.id)));
    await recordChange(tx, { ...opts, type: 'survey_deleted', subjectType: 'survey', subjectId: found.id, payload: { name: found.name } });
    return true;
  });
}

type Patch = Partial<Pick<Survey, 'design' | 'messages' | 'questions' | 'target' | 'name' | 'folderId' | 'language' | 'allowPartialSubmission' | 'responseLimit' | 'cutOffDate' | 'logoAttachmentId'>>;

/**
 * Writes part of the working copy when it differs from what is stored (section 4: Next saves only when something
 * changed). A question list is checked whole (known types, order, welcome first) before it is written; a folder must
 * be the account's. Returns whether anything changed; undefined when the survey is not the account's.
 */
export async function updateSurvey(opts: { accountId: number; actorId: number | null; id: number; viewer?: Viewer; patch: Patch; step: string }) {
  return getDb().transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(s)
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id)))
      .for('update');
    if (!current || (opts.viewer && !(await getSurvey({ ...opts, id: current.id }, tx)))) return undefined;
    const patch: Patch = { ...opts.patch };
    if (patch.questions) {
      const parsed = questionListSchema(current.subType).safeParse(patch.questions);
      if (!parsed.success) throw new SurveyInputError(parsed.error.issues[0]?.message ?? 'The question list is not valid', 'questions');
      patch.questions = parsed.data as SurveyQuestion[];
    }
    if (patch.folderId !== undefined && patch.folderId !== current.folderId) await requireFolder(tx, { ...opts, folderId: patch.folderId });
    const changed = Object.keys(patch).filter((k) => stableJson(patch[k as keyof Patch]) !== stableJson(current[k as keyof Survey]));
    if (changed.length === 0) return { changed: false, survey: current };
    const [row] = await tx
      .update(s)
      .set({ ...patch, updatedById: opts.actorId, updatedAt: new Date() })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, current.id)))
      .returning();
    await recordChange(tx, { ...opts, type: 'survey_updated', subjectType: 'survey', subjectId: row.id, payload: { name: row.name, step: opts.step, fields: changed } });
    return { changed: true, survey: row };
  });
}

/** What publishing needs: at least one question that asks something (section 2 ends the wizard with Publish). */
export function publishProblem(survey: Pick<Survey, 'questions' | 'channel' | 'design' | 'target'>): string | null {
  if (!survey.questions.some((q) => q.type !== 'welcome' && q.type !== 'thank-you')) return 'Add at least one question before publishing.';
  if (survey.channel === 'email' && survey.target.audience === 'csv' && !survey.target.listId) return 'please select a csv file';
  if (survey.channel === 'email' && survey.target.audience !== 'csv' && survey.target.tagIds.length === 0) return 'please select tag ids';
  if (survey.channel === 'email' && !survey.design.sendFrom) return 'Please select a sender address';
  return null;
}

/**
 * Publishes the working copy: a new immutable version (responses will reference it), status published (also from
 * closed or completed: publishing reopens), and a survey_published event, in one transaction.
 */
export async function publishSurvey(opts: { accountId: number; actorId: number | null; id: number; viewer?: Viewer; now?: Date }) {
  return getDb().transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(s)
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id)))
      .for('update');
    if (!current || (opts.viewer && !(await getSurvey({ ...opts, id: current.id }, tx)))) return undefined;
    const problem = publishProblem(current);
    if (problem) throw new SurveyInputError(problem);
    const today = (opts.now ?? new Date()).toISOString().slice(0, 10);
    if (current.cutOffDate && current.cutOffDate < today) throw new SurveyInputError('The cut-off date has passed: choose a later one in Settings.');
    const [{ next }] = await tx
      .select({ next: sql<number>`coalesce(max(${schema.surveyVersions.version}), 0)::int + 1` })
      .from(schema.surveyVersions)
      .where(and(eq(schema.surveyVersions.accountId, opts.accountId), eq(schema.surveyVersions.surveyId, current.id)));
    const [version] = await tx
      .insert(schema.surveyVersions)
      .values({
        accountId: opts.accountId,
        surveyId: current.id,
        version: next,
        name: current.name,
        channel: current.channel,
        subType: current.subType,
        logoAttachmentId: current.logoAttachmentId,
        design: current.design,
        messages: current.messages,
        questions: current.questions,
        target: current.target,
        settings: {
          language: current.language as SurveyLanguage,
          allowPartialSubmission: current.allowPartialSubmission,
          responseLimit: current.responseLimit,
          cutOffDate: current.cutOffDate,
        },
        publishedById: opts.actorId,
      })
      .returning();
    const [row] = await tx
      .update(s)
      .set({ status: 'published', publishedVersionId: version.id, publishedAt: new Date(), closedAt: null, updatedAt: new Date(), updatedById: opts.actorId })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, current.id)))
      .returning();
    await recordChange(tx, {
      ...opts,
      type: 'survey_published',
      subjectType: 'survey',
      subjectId: row.id,
      payload: { name: row.name, versionId: version.id, version: next, from: current.status },
    });
    // Email: the first occurrence of its schedule becomes a timer job (issue 15, ADR 062).
    if (row.channel === 'email') await scheduleEmailSurvey(tx, { accountId: opts.accountId, surveyId: row.id, now: opts.now });
    return { survey: row, version };
  });
}

/**
 * Closes (by hand, or because the cut-off date passed) or completes (the response limit was reached) a published
 * survey: it then takes no responses until it is published again (ADR 053).
 */
export async function endSurvey(
  opts: { accountId: number; actorId: number | null; id: number; status: 'closed' | 'completed'; reason: 'manual' | 'cut_off' | 'response_limit'; viewer?: Viewer },
  db?: Tx,
) {
  const run = async (tx: Tx) => {
    if (opts.viewer && !(await getSurvey(opts, tx))) return undefined;
    const [row] = await tx
      .update(s)
      .set({ status: opts.status, closedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id), eq(s.status, 'published')))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, {
      ...opts,
      type: 'survey_status_changed',
      subjectType: 'survey',
      subjectId: row.id,
      payload: { name: row.name, status: opts.status, reason: opts.reason },
    });
    return row;
  };
  return db ? run(db) : getDb().transaction(run);
}

/** Closes the account's published surveys whose cut-off date is over (called where statuses are read). */
export async function closeExpiredSurveys(opts: { accountId: number; now?: Date }) {
  const today = (opts.now ?? new Date()).toISOString().slice(0, 10);
  const due = await getDb()
    .select({ id: s.id })
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.status, 'published'), sql`${s.cutOffDate} < ${today}`));
  for (const row of due) await endSurvey({ accountId: opts.accountId, actorId: null, id: row.id, status: 'closed', reason: 'cut_off' });
  return due.length;
}

export function publicSurveyPath(survey: { accountId: number; uniqueId: string }) {
  return `/survey/web/${survey.accountId}/${survey.uniqueId}`;
}
