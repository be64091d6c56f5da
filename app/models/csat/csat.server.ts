import crypto from 'node:crypto';
import { and, asc, desc, eq, gte, isNotNull, lt, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitSurveyReceived } from '../events/engagement.server';
import { postMessage } from '../inbox/conversations.server';
import { saveAttachment } from '../inbox/attachments.server';
import { sendBulkEmail } from '../mail/mail.server';
import { checkLogoFile, dropLogoFile, readLogoAttachment } from '../surveys/logo.server';
import { SurveyInputError } from '../surveys/surveys.server';
import { recordChange } from '../productivity/shared.server';
import { accountLink } from '../../utils/tenant.server';
import { CSAT_MESSAGES, RATING_GLYPHS, RATING_LABELS } from './constants';
import type { ChatCsatInput, EmailCsatInput } from './schemas';

const c = schema.csatSurveys;
const r = schema.csatRatings;
type Kind = 'email' | 'chat';

export class CsatInputError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** The inboxes a kind may use: verified email inboxes for the email survey, web (messenger) inboxes for the chat survey. */
export async function listCsatInboxes(opts: { accountId: number; kind: Kind }) {
  const i = schema.inboxes;
  return getDb()
    .select({ id: i.id, name: i.name, email: i.email })
    .from(i)
    .where(
      and(
        eq(i.accountId, opts.accountId),
        opts.kind === 'email' ? and(eq(i.channelType, 'email'), isNotNull(i.email), isNotNull(i.forwardingVerifiedAt)) : eq(i.channelType, 'web'),
      ),
    )
    .orderBy(asc(i.id));
}

export async function listCsatSurveys(opts: { accountId: number; kind: Kind }) {
  return getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.kind, opts.kind)))
    .orderBy(asc(c.id));
}

export async function getCsatSurvey(opts: { accountId: number; kind: Kind; id: number }) {
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.kind, opts.kind), eq(c.id, opts.id)));
  return row;
}

/** Only the kind's own inboxes, and each inbox in one survey of a kind (else which one would ask?). */
async function checkInboxes(opts: { accountId: number; kind: Kind; inboxIds: number[]; exceptId?: number }) {
  const allowed = new Set((await listCsatInboxes(opts)).map((i) => i.id));
  if (opts.inboxIds.some((id) => !allowed.has(id))) throw new CsatInputError(CSAT_MESSAGES.inboxes, 'inboxIds');
  const others = (await listCsatSurveys(opts)).filter((s) => s.id !== opts.exceptId);
  if (others.some((s) => s.inboxIds.some((id) => opts.inboxIds.includes(id)))) throw new CsatInputError(CSAT_MESSAGES.inboxTaken, 'inboxIds');
}

type Input = ({ kind: 'email' } & EmailCsatInput) | ({ kind: 'chat' } & ChatCsatInput);

export async function saveCsatSurvey(opts: { accountId: number; actorId: number | null; id: number | 'new'; input: Input }) {
  const { kind, ...values } = opts.input;
  await checkInboxes({ accountId: opts.accountId, kind, inboxIds: values.inboxIds, exceptId: opts.id === 'new' ? undefined : opts.id });
  return getDb().transaction(async (tx) => {
    let row;
    if (opts.id === 'new') [row] = await tx.insert(c).values({ accountId: opts.accountId, kind, ...values }).returning();
    else
      [row] = await tx
        .update(c)
        .set({ ...values, updatedAt: new Date() })
        .where(and(eq(c.accountId, opts.accountId), eq(c.kind, kind), eq(c.id, opts.id)))
        .returning();
    if (!row) return undefined;
    await recordChange(tx, {
      accountId: opts.accountId,
      actorId: opts.actorId,
      type: 'survey_updated',
      subjectType: 'csat_survey',
      subjectId: row.id,
      payload: { kind, created: opts.id === 'new' },
    });
    return row;
  });
}

export async function deleteCsatSurvey(opts: { accountId: number; actorId: number | null; kind: Kind; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.kind, opts.kind), eq(c.id, opts.id)))
      .returning({ id: c.id });
    if (row) await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'survey_deleted', subjectType: 'csat_survey', subjectId: row.id, payload: { kind: opts.kind } });
    return !!row;
  });
}

const escapeHtml = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type EmailLook = Pick<typeof c.$inferSelect, 'subject' | 'heading' | 'subHeading' | 'footer' | 'ratingsType'>;

/** The logo's address (the attachment id in the query busts caches when it changes). */
export function csatLogoPath(accountId: number, survey: { id: number; logoAttachmentId: number | null }) {
  return `/csat/logo/${accountId}/${survey.id}?v=${survey.logoAttachmentId}`;
}

/**
 * The rating email: logo, heading and sub-heading ({{NAME}} / {{EMAIL}} filled in), five rating links, footer and the
 * unsubscribe link, with a text part. The settings page's preview renders the same function with sample values.
 */
export function renderCsatEmail(input: { survey: EmailLook; name: string; email: string; link: (n?: number) => string; unsubscribe: string; logoUrl: string | null }) {
  const { survey, link } = input;
  const fill = (t: string) => t.replaceAll('{{NAME}}', input.name).replaceAll('{{EMAIL}}', input.email);
  const type = survey.ratingsType === 'emoji' ? 'emoji' : 'star';
  const buttons = [1, 2, 3, 4, 5]
    .map(
      (n) =>
        `<a href="${escapeHtml(link(n))}" title="${RATING_LABELS[type][n - 1]}" style="display:inline-block;margin:2px;padding:8px 10px;border:1px solid #c9ced6;border-radius:6px;text-decoration:none;color:#b7791f;font-size:18px">${RATING_GLYPHS[type][n - 1]}</a>`,
    )
    .join('');
  const html = `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#1d2433">
<div style="max-width:560px;margin:0 auto;padding:24px">
${input.logoUrl ? `<p><img src="${escapeHtml(input.logoUrl)}" alt="" height="40" style="height:40px;max-width:100%"></p>` : ''}${survey.heading ? `<h1 style="font-size:20px">${escapeHtml(fill(survey.heading))}</h1>` : ''}${survey.subHeading ? `<p>${escapeHtml(fill(survey.subHeading))}</p>` : ''}
<p>${buttons}</p>${survey.footer ? `<p style="color:#555;font-size:13px">${escapeHtml(survey.footer)}</p>` : ''}
<p style="color:#777;font-size:12px"><a href="${escapeHtml(input.unsubscribe)}">Unsubscribe</a></p></div></body></html>`;
  const text = [fill(survey.heading), fill(survey.subHeading), '', ...[1, 2, 3, 4, 5].map((n) => `${RATING_LABELS[type][n - 1]}: ${link(n)}`), '', survey.footer, `Unsubscribe: ${input.unsubscribe}`].join('\n');
  return { html, text, subject: fill(survey.subject) };
}

/** Sets (a checked png or jpeg under 2 MB) or removes the email survey's logo; the old file goes unless another survey shows it. */
export async function setCsatLogo(opts: { accountId: number; actorId: number | null; id: number; file: File | null | 'remove' }) {
  const survey = await getCsatSurvey({ accountId: opts.accountId, kind: 'email', id: opts.id });
  if (!survey) return undefined;
  const checked = opts.file === 'remove' ? null : await checkLogoFile(opts.file).catch((err) => {
    if (err instanceof SurveyInputError) throw new CsatInputError(err.message, 'logo');
    throw err;
  });
  const old = survey.logoAttachmentId;
  await getDb().transaction(async (tx) => {
    const saved = checked ? await saveAttachment({ accountId: opts.accountId, messageId: null, filename: checked.file.name, contentType: checked.mime, bytes: checked.bytes }, tx) : null;
    await tx
      .update(c)
      .set({ logoAttachmentId: saved?.id ?? null, updatedAt: new Date() })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, survey.id)));
    await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'survey_updated', subjectType: 'csat_survey', subjectId: survey.id, payload: { kind: 'email', fields: ['logo'] } });
  });
  if (old) {
    const [still] = await getDb().select({ id: c.id }).from(c).where(and(eq(c.accountId, opts.accountId), eq(c.logoAttachmentId, old))).limit(1);
    if (!still) await dropLogoFile({ accountId: opts.accountId, id: old });
  }
  return survey;
}

/** The logo of an email survey, public (mail clients fetch it), png or jpeg only. */
export async function readCsatLogo(opts: { accountId: number; id: number }) {
  const survey = await getCsatSurvey({ accountId: opts.accountId, kind: 'email', id: opts.id });
  if (!survey?.logoAttachmentId) return undefined;
  return readLogoAttachment({ accountId: opts.accountId, id: survey.logoAttachmentId });
}

/**
 * A conversation was resolved (the engine, on conversation_updated): when its inbox has an email or chat survey, the
 * customer is asked once (a second resolve asks again only with allowMultipleFeedback). Email: one rating email from the
 * inbox's address, five links that record the rating. Chat: a message in the chat with the rating link, which the
 * messenger and the no-JS chat page show.
 */
export async function requestCsatRating(opts: { accountId: number; conversationId: number; causedByEventId?: number }) {
  const db = getDb();
  const v = schema.conversations;
  const [conv] = await db
    .select({
      id: v.id,
      inboxId: v.inboxId,
      contactId: v.contactId,
      assigneeId: v.assigneeId,
      teamId: v.teamId,
      status: v.status,
      channelType: schema.inboxes.channelType,
      inboxEmail: schema.inboxes.email,
      inboxName: schema.inboxes.name,
      contactEmail: schema.contacts.email,
      contactName: schema.contacts.firstName,
      domain: schema.accounts.domain,
    })
    .from(v)
    .innerJoin(schema.inboxes, eq(schema.inboxes.id, v.inboxId))
    .innerJoin(schema.accounts, eq(schema.accounts.id, v.accountId))
    .leftJoin(schema.contacts, eq(schema.contacts.id, v.contactId))
    .where(and(eq(v.accountId, opts.accountId), eq(v.id, opts.conversationId)));
  if (!conv || conv.status !== 'resolved') return { asked: false, reason: 'not resolved' };
  const kind: Kind | null = conv.channelType === 'email' ? 'email' : conv.channelType === 'web' ? 'chat' : null;
  if (!kind) return { asked: false, reason: 'channel' };
  const [survey] = await db
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.kind, kind), sql`${conv.inboxId} = any(${c.inboxIds})`))
    .orderBy(asc(c.id))
    .limit(1);
  if (!survey) return { asked: false, reason: 'no survey' };
  if (kind === 'email' && !conv.contactEmail) return { asked: false, reason: 'no address' };
  if (kind === 'email' && conv.contactEmail) {
    const [suppressed] = await db
      .select({ email: schema.emailSuppressions.email })
      .from(schema.emailSuppressions)
      .where(and(eq(schema.emailSuppressions.accountId, opts.accountId), eq(schema.emailSuppressions.email, conv.contactEmail.toLowerCase())));
    if (suppressed) return { asked: false, reason: 'unsubscribed' };
  }
  const token = crypto.randomBytes(24).toString('hex');
  const [row] = await db
    .insert(r)
    .values({
      accountId: opts.accountId,
      csatSurveyId: survey.id,
      kind,
      conversationId: conv.id,
      inboxId: conv.inboxId,
      contactId: conv.contactId,
      assigneeId: conv.assigneeId,
      teamId: conv.teamId,
      single: !survey.allowMultipleFeedback,
      token,
      email: conv.contactEmail?.toLowerCase() ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: r.id });
  if (!row) return { asked: false, reason: 'already asked' };
  const link = (n?: number) => accountLink(conv.domain, `/csat/${opts.accountId}/${token}${n ? `?r=${n}` : ''}`);
  if (kind === 'chat') {
    await postMessage({
      accountId: opts.accountId,
      actorId: null,
      conversationId: conv.id,
      kind: 'outgoing',
      text: `${survey.subject}\nRate this conversation: ${link()}`,
      cause: opts.causedByEventId ? { eventId: opts.causedByEventId } : undefined,
    });
    return { asked: true, ratingId: row.id };
  }
  const unsubscribe = accountLink(conv.domain, `/csat/${opts.accountId}/${token}/unsubscribe`);
  const { html, text, subject } = renderCsatEmail({
    survey,
    name: conv.contactName || conv.contactEmail!,
    email: conv.contactEmail!,
    link,
    unsubscribe,
    logoUrl: survey.logoAttachmentId ? accountLink(conv.domain, csatLogoPath(opts.accountId, survey)) : null,
  });
  const host = new URL(accountLink(conv.domain)).hostname;
  await sendBulkEmail({
    accountId: opts.accountId,
    from: conv.inboxName ? `"${conv.inboxName.replace(/"/g, '')}" <${conv.inboxEmail}>` : conv.inboxEmail!,
    to: conv.contactEmail!,
    subject,
    text,
    html,
    messageId: `<csat-${token}@${host}>`,
    headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  });
  return { asked: true, ratingId: row.id };
}

export async function findCsatRating(opts: { accountId: number; token: string }) {
  if (!/^[0-9a-f]{48}$/.test(opts.token)) return null;
  const [row] = await getDb()
    .select({ rating: r, survey: c })
    .from(r)
    .leftJoin(c, eq(c.id, r.csatSurveyId))
    .where(and(eq(r.accountId, opts.accountId), eq(r.token, opts.token)));
  return row ?? null;
}

/**
 * Records a rating (1–5) and writes `survey_received` in the same transaction, so workflows act on bad ratings. A
 * second click changes the rating only until a comment is written; the event is written on the first rating only.
 */
export async function rateConversation(opts: { accountId: number; token: string; rating: number }) {
  if (!Number.isInteger(opts.rating) || opts.rating < 1 || opts.rating > 5) throw new CsatInputError('Choose a rating from 1 to 5', 'rating');
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(r)
      .where(and(eq(r.accountId, opts.accountId), eq(r.token, opts.token)))
      .for('update');
    if (!row) return null;
    if (row.comment) return row;
    const [updated] = await tx.update(r).set({ rating: opts.rating, ratedAt: new Date() }).where(eq(r.id, row.id)).returning();
    if (row.rating === null)
      await emitSurveyReceived(tx, {
        accountId: opts.accountId,
        responseId: row.id,
        surveyId: row.csatSurveyId ?? 0,
        kind: 'csat',
        channel: row.kind === 'chat' ? 'in_app' : 'email',
        rating: opts.rating,
        contactId: row.contactId,
        conversationId: row.conversationId,
        inboxId: row.inboxId,
      } as Parameters<typeof emitSurveyReceived>[1]);
    return updated;
  });
}

export async function commentOnRating(opts: { accountId: number; token: string; comment: string }) {
  const [row] = await getDb()
    .update(r)
    .set({ comment: opts.comment })
    .where(and(eq(r.accountId, opts.accountId), eq(r.token, opts.token), isNotNull(r.rating)))
    .returning();
  return row ?? null;
}

export async function unsubscribeCsat(opts: { accountId: number; token: string }) {
  const found = await findCsatRating(opts);
  if (!found?.rating.email) return null;
  await getDb().insert(schema.emailSuppressions).values({ accountId: opts.accountId, email: found.rating.email, reason: 'unsubscribed' }).onConflictDoNothing();
  return found.rating.email;
}

/** The ratings of a conversation, for its page. */
export async function conversationRatings(opts: { accountId: number; conversationId: number }) {
  return getDb()
    .select({ id: r.id, kind: r.kind, rating: r.rating, comment: r.comment, ratedAt: r.ratedAt, requestedAt: r.requestedAt })
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.conversationId, opts.conversationId)))
    .orderBy(desc(r.id));
}

function knownZone(zone: string | undefined) {
  try {
    if (zone && /^[A-Za-z0-9_+\-/]+$/.test(zone)) {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return zone;
    }
  } catch {
    // an unknown zone: UTC
  }
  return 'UTC';
}

export type CsatGroup = 'agent' | 'team' | 'inbox' | 'day' | 'week' | 'month';

/**
 * The account-wide CSAT result over a period: ratings, average, and the share of 4–5 ("satisfied"), by agent, team,
 * inbox, day, week (from Monday) or month. Periods are cut in `timezone` (ADR 094: the account's default time zone,
 * the one analytics cuts days in), so a rating at 23:30 in Paris counts on its Paris day. Read from the ratings
 * themselves (indexed by account and rating time).
 */
export async function csatResults(opts: { accountId: number; from: Date; to: Date; by: CsatGroup; timezone?: string }) {
  // The zone is written into the statement (a bind parameter per use would make GROUP BY and SELECT differ), so only
  // a zone the runtime knows, as a quoted literal.
  const zone = knownZone(opts.timezone);
  const local = sql`(${r.ratedAt} at time zone ${sql.raw(`'${zone.replace(/'/g, "''")}'`)})`;
  const key =
    opts.by === 'agent'
      ? sql<string>`coalesce(trim(concat_ws(' ', ${schema.users.firstName}, ${schema.users.lastName})), 'Unassigned')`
      : opts.by === 'team'
        ? sql<string>`coalesce(${schema.teams.name}, 'No team')`
        : opts.by === 'inbox'
          ? sql<string>`coalesce(${schema.inboxes.name}, 'Deleted inbox')`
          : opts.by === 'week'
            ? sql<string>`to_char(date_trunc('week', ${local}), 'YYYY-MM-DD')`
            : opts.by === 'month'
              ? sql<string>`to_char(${local}, 'YYYY-MM')`
              : sql<string>`to_char(${local}, 'YYYY-MM-DD')`;
  const rows = await getDb()
    .select({
      key,
      ratings: sql<number>`count(*)::int`,
      average: sql<number>`round(avg(${r.rating})::numeric, 2)::float`,
      satisfied: sql<number>`count(*) filter (where ${r.rating} >= 4)::int`,
    })
    .from(r)
    .leftJoin(schema.users, eq(schema.users.id, r.assigneeId))
    .leftJoin(schema.teams, eq(schema.teams.id, r.teamId))
    .leftJoin(schema.inboxes, eq(schema.inboxes.id, r.inboxId))
    .where(and(eq(r.accountId, opts.accountId), isNotNull(r.rating), gte(r.ratedAt, opts.from), lt(r.ratedAt, opts.to)))
    .groupBy(key)
    .orderBy(key);
  const total = rows.reduce((a, x) => a + x.ratings, 0);
  const satisfied = rows.reduce((a, x) => a + x.satisfied, 0);
  return {
    total,
    csat: total ? Math.round((satisfied / total) * 1000) / 10 : null,
    rows: rows.map((x) => ({ ...x, csat: x.ratings ? Math.round((x.satisfied / x.ratings) * 1000) / 10 : 0 })),
  };
}
