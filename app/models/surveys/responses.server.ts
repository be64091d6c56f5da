import crypto from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitSurveyReceived } from '../events/engagement.server';
import { getLogger } from '../../utils/logger.server';
import { checkAnswer, countKeys, isAnswerable, SurveyAnswerError } from './answers';
import type { SurveyChannel } from './constants';
import type { AnswerValue, ClosedReason, ResponseChannel, SurveyAnswers } from './response-types';
import { endSurvey } from './surveys.server';
import type { SurveyQuestion } from './types';

export { SurveyAnswerError };

export type SurveyVersion = typeof schema.surveyVersions.$inferSelect;
export type SurveyResponse = typeof schema.surveyResponses.$inferSelect;
const s = schema.surveys;
const v = schema.surveyVersions;
const r = schema.surveyResponses;
const d = schema.surveyResultDeltas;

/** The survey takes no response (closed, completed, not published): the public pages answer 410 with its reason. */
export class SurveyClosedError extends Error {
  readonly status = 410;
  constructor(readonly reason: ClosedReason) {
    super(reason);
  }
}

/** A response key that is someone else's, or a survey of another channel: nothing is written. */
export class SurveyResponseError extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

/** A random key: web respondents' cookie, a response's key. */
export const randomKey = () => crypto.randomBytes(16).toString('base64url');
export const RESPONSE_KEY_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

// ------------------------------------------------------------------------------------------ the survey a respondent sees

/** Published versions never change (ADR 053): each process keeps the few hundred it served last. */
const versionCache = new Map<number, SurveyVersion>();
const VERSION_CACHE_MAX = 500;

async function readVersion(accountId: number, id: number, db: DbOrTx): Promise<SurveyVersion | undefined> {
  const cached = versionCache.get(id);
  if (cached) return cached.accountId === accountId ? cached : undefined;
  const [row] = await db
    .select()
    .from(v)
    .where(and(eq(v.accountId, accountId), eq(v.id, id)));
  if (!row) return undefined;
  if (versionCache.size >= VERSION_CACHE_MAX) versionCache.delete(versionCache.keys().next().value!);
  versionCache.set(id, row);
  return row;
}

/** A published version of the account's (the one a response answered, which may be older than the survey's current one). */
export const getVersion = (opts: { accountId: number; id: number }, db: DbOrTx = getDb()) => readVersion(opts.accountId, opts.id, db);

const surveyHead = {
  id: s.id,
  accountId: s.accountId,
  uniqueId: s.uniqueId,
  channel: s.channel,
  subType: s.subType,
  status: s.status,
  publishedVersionId: s.publishedVersionId,
  logoAttachmentId: s.logoAttachmentId,
};
export type SurveyHead = {
  id: number;
  accountId: number;
  uniqueId: string;
  channel: SurveyChannel;
  subType: string;
  status: string;
  publishedVersionId: number | null;
  logoAttachmentId: number | null;
};

const todayOf = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Why the survey takes no response now, or null when it takes them. A published survey whose cut-off date has passed
 * is closed here (ADR 053: statuses are brought up to date where they are read).
 */
export async function closedReason(head: SurveyHead, version: SurveyVersion | undefined, now = new Date()): Promise<ClosedReason | null> {
  if (head.status === 'completed') return 'completed';
  if (head.status === 'closed') return 'closed';
  if (head.status !== 'published' || !version) return 'unpublished';
  const cutOff = version.settings.cutOffDate;
  if (cutOff && cutOff < todayOf(now)) {
    await endSurvey({ accountId: head.accountId, actorId: null, id: head.id, status: 'closed', reason: 'cut_off' });
    return 'closed';
  }
  return null;
}

/**
 * A survey as its public link names it (/survey/web/{accountId}/{uniqueId}), with its published version. Undefined
 * when no survey of the account has that key (404); `closed` says why it takes no response (410).
 */
export async function findPublicSurvey(opts: { accountId: number; uniqueId: string; now?: Date }, db: DbOrTx = getDb()) {
  if (!/^[a-z0-9]{1,32}$/.test(opts.uniqueId)) return undefined;
  const [head] = await db
    .select(surveyHead)
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.uniqueId, opts.uniqueId)));
  return head ? withVersion(head as SurveyHead, opts.now, db) : undefined;
}

/** The same by row id (the in-app module names surveys by id, scoped to the widget's account). */
export async function findSurveyForRespondent(opts: { accountId: number; surveyId: number; now?: Date }, db: DbOrTx = getDb()) {
  const [head] = await db
    .select(surveyHead)
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.surveyId)));
  return head ? withVersion(head as SurveyHead, opts.now, db) : undefined;
}

async function withVersion(head: SurveyHead, now: Date | undefined, db: DbOrTx) {
  const version = head.publishedVersionId ? await readVersion(head.accountId, head.publishedVersionId, db) : undefined;
  return { survey: head, version, closed: await closedReason(head, version, now) };
}

/** The questions a respondent is asked, in order (welcome and thank-you included: the pages show them). */
export const questionsOf = (version: Pick<SurveyVersion, 'questions'>) => [...version.questions].sort((a, b) => a.order - b.order);

// ------------------------------------------------------------------------------------------ a respondent's responses

/** The respondent's response still being answered (web: found by the respondent cookie), if any. */
export async function findOpenResponse(opts: { accountId: number; surveyId: number; respondentKey: string }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.surveyId, opts.surveyId), eq(r.respondentKey, opts.respondentKey), eq(r.complete, false)))
    .orderBy(sql`${r.id} desc`)
    .limit(1);
  return row;
}

/** Whether the respondent has finished this survey before (allowRetaking, showUntilResponded). */
export async function hasCompleted(opts: { accountId: number; surveyId: number; respondentKey: string }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select({ id: r.id })
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.surveyId, opts.surveyId), eq(r.respondentKey, opts.respondentKey), eq(r.complete, true)))
    .limit(1);
  return !!row;
}

export async function getResponse(opts: { accountId: number; surveyId: number; responseKey: string }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.surveyId, opts.surveyId), eq(r.responseKey, opts.responseKey)));
  return row;
}

/** Required questions without an answer: the first one's id, for the page to point at. */
export function missingRequired(questions: SurveyQuestion[], answers: SurveyAnswers) {
  return questions.filter((q) => isAnswerable(q.type) && q.isRequired && (answers[q.id] === undefined || answers[q.id] === null));
}

export type RespondentContext = {
  /** The web respondent cookie, or `v:` + the widget visitor id. */
  respondentKey: string;
  contactId?: number | null;
  widgetVisitorId?: string | null;
  conversationId?: number | null;
  pageUrl?: string | null;
};

export type RecordAnswersInput = {
  accountId: number;
  surveyId: number;
  channel: ResponseChannel;
  /** Unique per survey; a key seen before continues that response (a retried answer changes nothing twice). */
  responseKey: string;
  /** Answers by question id; an empty value clears that answer. */
  answers: Record<string, unknown>;
  /** Finish the response: every required question must then have an answer. */
  complete: boolean;
  respondent: RespondentContext;
  now?: Date;
};

/** Every complete response closes out the survey's counts this many at a time (ADR 060). */
export const FOLD_EVERY = 2000;

/**
 * Records answers of one response, and completes it when asked (ADR 060), in one transaction:
 * - the survey must take responses (published, before its cut-off, under its limit): else SurveyClosedError (410);
 * - each answer is checked against the question of the version the response answers: else SurveyAnswerError (400);
 * - with partial submission on, answers count as they are given; with it off, they are held as a draft that is
 *   not a response until it completes;
 * - completing writes `survey_received` and, when it reaches the response limit, completes the survey.
 * An already complete response is returned unchanged (an in-app retry of the last answer).
 */
export async function recordAnswers(input: RecordAnswersInput) {
  const now = input.now ?? new Date();
  if (!RESPONSE_KEY_PATTERN.test(input.responseKey)) throw new SurveyResponseError('The response key is not valid');
  const result = await getDb().transaction(async (tx) => {
    // Both reads go out together (postgres.js pipelines them on the transaction's connection): one round trip.
    const [found, [existing]] = await Promise.all([
      findSurveyForRespondent({ accountId: input.accountId, surveyId: input.surveyId, now }, tx),
      tx
        .select()
        .from(r)
        .where(and(eq(r.accountId, input.accountId), eq(r.surveyId, input.surveyId), eq(r.responseKey, input.responseKey)))
        .for('update'),
    ]);
    if (!found) throw new SurveyResponseError('This survey does not exist', 404);
    if (found.survey.channel !== input.channel) throw new SurveyResponseError('This survey is not answered here', 404);
    if (existing && existing.respondentKey !== input.respondent.respondentKey) throw new SurveyResponseError('This response is not yours', 403);
    if (existing?.complete) return { response: existing, completed: false, alreadyComplete: true };
    if (found.closed) throw new SurveyClosedError(found.closed);
    const version = existing ? await readVersion(input.accountId, existing.surveyVersionId, tx) : found.version;
    if (!version) throw new SurveyClosedError('unpublished');
    const questions = questionsOf(version);

    // Check every answer first: a bad one writes nothing.
    const next: SurveyAnswers = { ...(existing?.answers ?? {}) };
    for (const [id, raw] of Object.entries(input.answers)) {
      const q = questions.find((x) => x.id === id);
      if (!q) throw new SurveyAnswerError('That question is not in this survey.', id);
      const value = checkAnswer(q, raw);
      if (value === null) delete next[id];
      else next[id] = value;
    }
    if (input.complete) {
      const missing = missingRequired(questions, next);
      if (missing.length) throw new SurveyAnswerError(version.messages.mandatory, missing[0].id);
    }
    const draft = !input.complete && !version.settings.allowPartialSubmission;
    const limit = version.settings.responseLimit;
    if (input.complete && limit !== null) {
      // Completions of a limited survey take turns on the survey row, so the limit is never overshot.
      await tx.execute(sql`select 1 from ${s} where ${s.accountId} = ${input.accountId} and ${s.id} = ${input.surveyId} for update`);
      const [{ done }] = await tx
        .select({ done: sql<number>`count(*)::int` })
        .from(r)
        .where(and(eq(r.accountId, input.accountId), eq(r.surveyId, input.surveyId), eq(r.complete, true)));
      // Already full (a limit lowered, or a survey published again at its limit): completed once this rolls back.
      if (done >= limit) return { limitReached: true as const };
    }

    const ctx = input.respondent;
    let row: SurveyResponse;
    const counted = { answers: next, draft, complete: input.complete, startedAt: existing?.startedAt ?? now, channel: input.channel };
    const deltas = appendDeltas(tx, {
      accountId: input.accountId,
      surveyId: input.surveyId,
      questions,
      before: existing && !existing.draft ? existing : null,
      after: counted,
    });
    if (existing) {
      [[row]] = await Promise.all([
        tx
          .update(r)
          .set({
            answers: next,
            draft,
            complete: input.complete,
            completedAt: input.complete ? now : null,
            updatedAt: now,
            pageUrl: existing.pageUrl ?? ctx.pageUrl?.slice(0, 2000) ?? null,
            contactId: existing.contactId ?? ctx.contactId ?? null,
          })
          .where(and(eq(r.accountId, input.accountId), eq(r.id, existing.id)))
          .returning(),
        deltas,
      ]);
    } else {
      [[row]] = await Promise.all([
        tx
          .insert(r)
          .values({
            accountId: input.accountId,
            surveyId: input.surveyId,
            surveyVersionId: version.id,
            channel: input.channel,
            responseKey: input.responseKey,
            respondentKey: ctx.respondentKey,
            contactId: ctx.contactId ?? null,
            widgetVisitorId: ctx.widgetVisitorId ?? null,
            conversationId: ctx.conversationId ?? null,
            pageUrl: ctx.pageUrl?.slice(0, 2000) ?? null,
            answers: next,
            draft,
            complete: input.complete,
            startedAt: now,
            updatedAt: now,
            completedAt: input.complete ? now : null,
          })
          .returning(),
        deltas,
      ]);
    }

    if (input.complete) {
      await emitSurveyReceived(tx, {
        accountId: input.accountId,
        responseId: row.id,
        surveyId: input.surveyId,
        kind: found.survey.subType,
        channel: input.channel === 'in-app' ? 'in_app' : input.channel,
        rating: headlineRating(questions, next),
        comment: firstText(questions, next),
        contactId: row.contactId,
        conversationId: row.conversationId,
      });
      if (limit !== null) {
        const [{ done }] = await tx
          .select({ done: sql<number>`count(*)::int` })
          .from(r)
          .where(and(eq(r.accountId, input.accountId), eq(r.surveyId, input.surveyId), eq(r.complete, true)));
        if (done >= limit)
          await endSurvey({ accountId: input.accountId, actorId: null, id: input.surveyId, status: 'completed', reason: 'response_limit' }, tx);
      }
    }
    return { response: row, completed: input.complete, alreadyComplete: false };
  });
  if ('limitReached' in result) {
    await endSurvey({ accountId: input.accountId, actorId: null, id: input.surveyId, status: 'completed', reason: 'response_limit' });
    throw new SurveyClosedError('completed');
  }
  if (result.completed && result.response.id % FOLD_EVERY === 0) {
    // Keeps a busy survey's counts few between reads of its results; a failure only leaves more rows to sum.
    foldResultDeltas({ accountId: input.accountId, surveyId: input.surveyId }).catch((err) => getLogger().warn({ err }, 'survey delta fold failed'));
  }
  return result;
}

/** The score a workflow's rating condition reads: the first NPS, CSAT, CES, rating or smiley answer. */
function headlineRating(questions: SurveyQuestion[], answers: SurveyAnswers) {
  for (const kind of ['nps', 'csat', 'ces', 'rating', 'smiley']) {
    const q = questions.find((x) => x.type === kind && typeof answers[x.id] === 'number');
    if (q) return answers[q.id] as number;
  }
  return null;
}

function firstText(questions: SurveyQuestion[], answers: SurveyAnswers) {
  const q = questions.find((x) => x.type === 'text' && typeof answers[x.id] === 'string');
  return q ? (answers[q.id] as string).slice(0, 1000) : null;
}

/**
 * Appends the count changes of one write: everything of the response when it becomes counted (a first partial
 * answer, or a draft completing), else the difference between its old and new answers, and +1 completed.
 */
async function appendDeltas(
  tx: Tx,
  opts: {
    accountId: number;
    surveyId: number;
    questions: SurveyQuestion[];
    before: SurveyResponse | null;
    after: { answers: SurveyAnswers; draft: boolean; complete: boolean; startedAt: Date; channel: ResponseChannel };
  },
) {
  const { after, before } = opts;
  if (after.draft) return;
  const day = after.startedAt.toISOString().slice(0, 10);
  const changes = new Map<string, number>();
  const add = (questionId: string, key: string, n: number) => {
    const k = `${questionId}\u0000${key}`;
    changes.set(k, (changes.get(k) ?? 0) + n);
  };
  if (!before) add('', 'responses', 1);
  if (after.complete && !before?.complete) add('', 'completed', 1);
  for (const q of opts.questions) {
    if (!isAnswerable(q.type)) continue;
    for (const key of countKeys(q, before?.answers[q.id] as AnswerValue | undefined)) add(q.id, key, -1);
    for (const key of countKeys(q, after.answers[q.id] as AnswerValue | undefined)) add(q.id, key, 1);
  }
  const rows = [...changes]
    .filter(([, n]) => n !== 0)
    .map(([k, n]) => {
      const [questionId, valueKey] = k.split('\u0000');
      return { accountId: opts.accountId, surveyId: opts.surveyId, questionId, valueKey, day, channel: after.channel, n };
    });
  if (rows.length) await tx.insert(d).values(rows);
}

/**
 * Folds the rows writers appended for a survey into the fold's rows, one per (question, value, day, channel), in one
 * statement (after ADR 032): the unfolded rows are deleted and their sums added to the folded rows (made when
 * missing). Rows appended meanwhile are not in the statement's snapshot and stay; two folds at once delete each
 * row once, and their additions commute. Writers never touch folded rows, so a fold makes no respondent wait.
 */
export async function foldResultDeltas(opts: { accountId: number; surveyId: number }, db: DbOrTx = getDb()) {
  await db.execute(sql`
    with gone as (
      delete from ${d} where account_id = ${opts.accountId} and survey_id = ${opts.surveyId} and not folded
      returning account_id, survey_id, question_id, value_key, day, channel, n
    )
    insert into ${d} as t (account_id, survey_id, question_id, value_key, day, channel, n, folded)
    select account_id, survey_id, question_id, value_key, day, channel, sum(n)::int, true
      from gone group by account_id, survey_id, question_id, value_key, day, channel
    on conflict (survey_id, question_id, value_key, day, channel) where folded do update set n = t.n + excluded.n`);
}
