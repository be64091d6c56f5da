import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { WidgetVisitor } from '../channels/widget.server';
import { questionsOf } from './responses.server';
import type { PageCondition, SurveyTarget } from './types';

const s = schema.surveys;
const v = schema.surveyVersions;
const r = schema.surveyResponses;

/** A widget visitor answers as `v:` and its id (ADR 061). */
export const visitorRespondent = (visitor: Pick<WidgetVisitor, 'id'>) => `v:${visitor.id}`;

function pathOf(url: string) {
  try {
    const u = new URL(url);
    return { full: u.href, path: u.pathname + u.search, pathname: u.pathname };
  } catch {
    return null;
  }
}

/**
 * Whether one page condition names the page. A link may be a whole address or a path: "/pricing" matches
 * https://shop.example/pricing; exact ignores a trailing slash; contain, start and end compare text as written.
 */
export function conditionMatches(c: PageCondition, url: string) {
  const page = pathOf(url);
  if (!page) return false;
  const link = c.link.trim();
  if (!link) return false;
  const candidates = /^https?:\/\//i.test(link) ? [page.full] : [page.path, page.pathname];
  const strip = (x: string) => (x.length > 1 ? x.replace(/\/+$/, '') : x);
  return candidates.some((text) => {
    switch (c.linkType) {
      case 'exact':
        return strip(text) === strip(link);
      case 'contain':
        return text.includes(link);
      case 'start':
        return text.startsWith(link);
      case 'end':
        return strip(text).endsWith(strip(link));
      default:
        return false;
    }
  });
}

export const targetsPage = (target: Pick<SurveyTarget, 'showOnAllPages' | 'allowedPages'>, url: string) =>
  target.showOnAllPages || (target.allowedPages ?? []).some((c) => conditionMatches(c, url));

/**
 * The account's published in-app surveys (optionally only the one a snippet names by its key) whose page conditions
 * match the URL: evaluated on the server, so the widget learns in its session answer whether to fetch the survey
 * module at all (ADR 061). One indexed read of a few rows.
 */
export async function targetedInAppSurveys(opts: { accountId: number; url: string; uniqueId?: string | null }) {
  const rows = await getDb()
    .select({ id: s.id, uniqueId: s.uniqueId, subType: s.subType, logoAttachmentId: s.logoAttachmentId, version: v })
    .from(s)
    .innerJoin(v, and(eq(v.id, s.publishedVersionId), eq(v.accountId, s.accountId)))
    .where(and(eq(s.accountId, opts.accountId), eq(s.channel, 'in-app'), eq(s.status, 'published'), opts.uniqueId ? eq(s.uniqueId, opts.uniqueId) : undefined))
    .orderBy(sql`${s.publishedAt} desc nulls last`, s.id)
    .limit(20);
  const today = new Date().toISOString().slice(0, 10);
  return rows.filter((row) => targetsPage(row.version.target, opts.url) && !(row.version.settings.cutOffDate && row.version.settings.cutOffDate < today));
}

/**
 * Whether the account has a published in-app survey at all (the snippet's own, when it names one): only then does
 * the widget ask again when a single-page site changes its address without a page load.
 */
export async function anyInAppSurveyLive(opts: { accountId: number; uniqueId?: string | null }) {
  const [row] = await getDb()
    .select({ id: s.id })
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.channel, 'in-app'), eq(s.status, 'published'), opts.uniqueId ? eq(s.uniqueId, opts.uniqueId) : undefined))
    .limit(1);
  return Boolean(row);
}

/**
 * The survey the in-app module should show this visitor on this page, with the answers of a response they left
 * half way, or null. showUntilResponded: shown on every visit until the visitor (or their contact) completes it;
 * otherwise shown until they have started it (the module also remembers a survey it showed once).
 */
export async function inAppSurveyFor(opts: { visitor: WidgetVisitor; url: string; uniqueId?: string | null }) {
  const candidates = await targetedInAppSurveys({ accountId: opts.visitor.accountId, url: opts.url, uniqueId: opts.uniqueId });
  if (!candidates.length) return null;
  const respondent = visitorRespondent(opts.visitor);
  const mine = await getDb()
    .select({ surveyId: r.surveyId, complete: r.complete, responseKey: r.responseKey, answers: r.answers, versionId: r.surveyVersionId })
    .from(r)
    .where(
      and(
        eq(r.accountId, opts.visitor.accountId),
        inArray(
          r.surveyId,
          candidates.map((c) => c.id),
        ),
        opts.visitor.contactId ? or(eq(r.respondentKey, respondent), eq(r.contactId, opts.visitor.contactId)) : eq(r.respondentKey, respondent),
      ),
    );
  for (const c of candidates) {
    const responses = mine.filter((m) => m.surveyId === c.id);
    if (responses.some((m) => m.complete)) continue;
    const open = responses.find((m) => !m.complete && m.versionId === c.version.id);
    if (!c.version.target.showUntilResponded && responses.length && !open) continue;
    const ver = c.version;
    return {
      id: c.id,
      uniqueId: c.uniqueId,
      logo: c.logoAttachmentId ? `/survey/logo/${opts.visitor.accountId}/${c.uniqueId}` : null,
      questions: questionsOf(ver).map((q) => ({
        id: q.id,
        type: q.type,
        heading: q.heading ?? '',
        question: q.question,
        isRequired: q.isRequired,
        settings: q.settings,
      })),
      design: {
        themeType: ver.design.themeType,
        position: ver.design.position,
        brandColor: ver.design.brandColor,
        header: ver.design.header,
        subHeader: ver.design.subHeader,
        footer: ver.design.footer,
        showBranding: ver.design.showBranding,
        showProgressBar: ver.design.showProgressBar,
        showQuestionNumber: ver.design.showQuestionNumber,
        indicateMandatory: ver.design.indicateMandatory,
      },
      messages: ver.messages,
      display: {
        method: ver.target.displayMethod,
        delay: ver.target.displayDelay,
        scroll: ver.target.displayScroll,
        untilResponded: ver.target.showUntilResponded,
      },
      responseKey: open?.responseKey ?? null,
      answers: open?.answers ?? {},
    };
  }
  return null;
}
export type InAppSurvey = NonNullable<Awaited<ReturnType<typeof inAppSurveyFor>>>;
