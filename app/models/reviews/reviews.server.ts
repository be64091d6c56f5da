import crypto from 'node:crypto';
import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { ReviewSourceConfig } from '../../../db/schema/reviews';
import { findOrCreateContact } from '../contacts/contacts.server';
import { emitReviewReceived } from '../events/engagement.server';
import { emitEvent } from '../events/events.server';
import { isUniqueViolation, recordChange } from '../productivity/shared.server';
import { enqueueOnceInTx, QUEUES } from '../../utils/jobs.server';
import { outboundFailure } from '../../utils/outbound-guard.server';
import { authorizationUrl, exchangeCode, GOOGLE_OFFLINE, googleOAuth2, OAuth2Error, refreshTokens, revokeToken } from '../../utils/oauth2.server';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import { fetchFacebookRatings, fetchGoogleReviews, fetchTrustpilotReviews, replyOnFacebook, replyOnGoogle, replyOnTrustpilot, ReviewApiError, type ExternalReview } from './clients.server';
import { canPostReply, IMPORT_INTERVAL_MS, IMPORTING_KINDS, REVIEWS_PAGE_SIZE, SOURCE_KIND_LABELS, type ReviewSort, type ReviewSourceKind } from './constants';
import type { ReviewSourceInput } from './schemas';

export type ReviewSource = typeof schema.reviewSources.$inferSelect;
export type Review = typeof schema.reviews.$inferSelect;

const s = schema.reviewSources;
const rv = schema.reviews;

const newCode = () => crypto.randomBytes(9).toString('base64url');

// ---------------------------------------------------------------------------------------------------------
// Sources

export async function listSources(opts: { accountId: number }) {
  const counts = getDb()
    .select({ sourceId: rv.sourceId, n: count().as('n'), avg: sql<string | null>`avg(${rv.rating})`.as('avg') })
    .from(rv)
    .where(eq(rv.accountId, opts.accountId))
    .groupBy(rv.sourceId)
    .as('counts');
  return getDb()
    .select({
      id: s.id,
      kind: s.kind,
      name: s.name,
      code: s.code,
      reviewUrl: s.reviewUrl,
      isActive: s.isActive,
      lastImportedAt: s.lastImportedAt,
      lastImportError: s.lastImportError,
      reviews: sql<number>`coalesce(${counts.n}, 0)::int`,
      average: counts.avg,
    })
    .from(s)
    .leftJoin(counts, eq(counts.sourceId, s.id))
    .where(eq(s.accountId, opts.accountId))
    .orderBy(asc(s.id));
}

export async function getSource(opts: { accountId: number; id: number }, db: Tx | ReturnType<typeof getDb> = getDb()) {
  const [row] = await db
    .select()
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id)));
  return row;
}

export async function getSourceByCode(opts: { accountId: number; code: string }) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.code)) return undefined;
  const [row] = await getDb()
    .select()
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.code, opts.code)));
  return row;
}

/** Only the fields of the source's kind are kept; a blank secret on update keeps the stored one. */
function configOf(input: ReviewSourceInput, before?: ReviewSourceConfig): ReviewSourceConfig {
  if (input.kind === 'google')
    return {
      locationName: input.locationName ?? undefined,
      accessToken: input.accessToken ?? before?.accessToken,
      // A pasted access token has no known expiry: the refresh token (if any) renews it on its first 401.
      accessTokenExpiresAt: input.accessToken ? undefined : before?.accessTokenExpiresAt,
      refreshToken: input.refreshToken ?? before?.refreshToken,
      apiBase: before?.apiBase,
    };
  if (input.kind === 'trustpilot')
    return { businessUnitId: input.businessUnitId ?? undefined, apiKey: input.apiKey ?? before?.apiKey, accessToken: input.accessToken ?? before?.accessToken, apiBase: before?.apiBase };
  if (input.kind === 'facebook') return { pageId: input.pageId ?? undefined, accessToken: input.accessToken ?? before?.accessToken, apiBase: before?.apiBase };
  return {};
}

// The source's secrets are sealed at rest (app/utils/secret-box.server.ts, bound to the account and the field):
// the config column holds `v1.…` strings, opened only in server memory for the API clients.
const SECRET_FIELDS = ['accessToken', 'refreshToken', 'apiKey'] as const;
const secretContext = (accountId: number, field: string) => ({ accountId, purpose: `review-source:${field}` });
const isSealed = (v: string) => v.startsWith('v1.');

export function sealSourceConfig(accountId: number, config: ReviewSourceConfig): ReviewSourceConfig {
  const out = { ...config };
  for (const f of SECRET_FIELDS) {
    const v = out[f];
    if (v && !isSealed(v)) out[f] = sealSecret(v, secretContext(accountId, f));
  }
  return out;
}

/** The config with its secrets opened (rows from before sealing hold plain values, used as they are). */
export function openSourceConfig(source: { accountId: number; config: ReviewSourceConfig }): ReviewSourceConfig {
  const out = { ...source.config };
  for (const f of SECRET_FIELDS) {
    const v = out[f];
    if (v && isSealed(v)) out[f] = openSecret(v, secretContext(source.accountId, f));
  }
  return out;
}

/** Schedules the source's next read (one waiting job per source), in the caller's transaction. */
async function scheduleImport(tx: Tx, source: { accountId: number; id: number; kind: string; config: ReviewSourceConfig }, startAfter?: Date) {
  if (!IMPORTING_KINDS.includes(source.kind as ReviewSourceKind)) return;
  // Facebook without a Page and token is a profile link only: nothing to read.
  if (source.kind === 'facebook' && !(source.config.pageId && source.config.accessToken)) return;
  await enqueueOnceInTx(tx, QUEUES.reviewsImport, { accountId: source.accountId, sourceId: source.id }, { singletonKey: `reviews-import:${source.id}`, startAfter });
}

export async function createSource(opts: { accountId: number; actorId: number | null; input: ReviewSourceInput; apiBase?: string }) {
  const config = sealSourceConfig(opts.accountId, { ...configOf(opts.input), ...(opts.apiBase ? { apiBase: opts.apiBase } : {}) });
  for (let attempt = 0; ; attempt++) {
    try {
      return await getDb().transaction(async (tx) => {
        const [row] = await tx
          .insert(s)
          .values({ accountId: opts.accountId, kind: opts.input.kind, name: opts.input.name, reviewUrl: opts.input.reviewUrl, code: newCode(), config })
          .returning();
        await recordChange(tx, { ...opts, type: 'review_source_created', subjectType: 'review_source', subjectId: row.id, payload: { kind: row.kind, name: row.name } });
        await scheduleImport(tx, row);
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err) && attempt < 3) continue;
      throw err;
    }
  }
}

export async function updateSource(opts: { accountId: number; actorId: number | null; id: number; input: ReviewSourceInput }) {
  const before = await getSource(opts);
  if (!before) return undefined;
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(s)
      // The kind never changes: its reviews came from there.
      .set({ name: opts.input.name, reviewUrl: opts.input.reviewUrl, config: sealSourceConfig(opts.accountId, configOf({ ...opts.input, kind: before.kind as ReviewSourceKind }, before.config)), updatedAt: new Date() })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, before.id)))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, { ...opts, type: 'review_source_updated', subjectType: 'review_source', subjectId: row.id, payload: { name: row.name } });
    await scheduleImport(tx, row);
    return row;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Google Business Profile: the OAuth consent flow (ADR 096)

export const GOOGLE_BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage';
const STATE_TTL_MS = 10 * 60_000;

export class GoogleConnectError extends Error {}

function stateMac(payload: string) {
  return crypto.createHmac('sha256', getConfig().sessionSecret).update(`review-google-oauth:${payload}`).digest('base64url').slice(0, 32);
}

/** Google's consent page for one Google source; `state` binds the account, the user, the source and the time. */
export function googleSourceConsentUrl(opts: { accountId: number; userId: number; sourceId: number; redirectUri: string }) {
  const google = googleOAuth2();
  if (!google) throw new GoogleConnectError('Google is not set up on this server (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET).');
  const payload = [opts.accountId, opts.userId, opts.sourceId, Date.now(), crypto.randomBytes(6).toString('base64url')].join('.');
  return authorizationUrl(google, { redirectUri: opts.redirectUri, scope: [GOOGLE_BUSINESS_SCOPE, 'openid', 'email'], state: `${payload}.${stateMac(payload)}`, extra: GOOGLE_OFFLINE });
}

/** The source id the state was signed for, when it is this account's and user's and younger than ten minutes; else null. */
export function verifyGoogleSourceState(state: string, opts: { accountId: number; userId: number }) {
  const parts = state.split('.');
  if (parts.length !== 6) return null;
  const mac = parts.pop()!;
  const expected = stateMac(parts.join('.'));
  if (mac.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return null;
  const [a, u, id, t] = parts.map(Number);
  if (a !== opts.accountId || u !== opts.userId || !(Date.now() - t < STATE_TTL_MS) || !Number.isSafeInteger(id)) return null;
  return id;
}

/**
 * Google sent the user back with a code: it is exchanged at the token endpoint and the tokens are kept on the
 * source, sealed; the connected Google account's address is shown in Settings. An import is scheduled at once.
 */
export async function connectGoogleSource(opts: { accountId: number; actorId: number; sourceId: number; code: string; redirectUri: string }) {
  const google = googleOAuth2();
  if (!google) throw new GoogleConnectError('Google is not set up on this server (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET).');
  const source = await getSource({ accountId: opts.accountId, id: opts.sourceId });
  if (!source || source.kind !== 'google') return undefined;
  let tokens;
  try {
    tokens = await exchangeCode(google, { code: opts.code, redirectUri: opts.redirectUri });
  } catch (err) {
    if (err instanceof OAuth2Error) throw new GoogleConnectError(err.message);
    throw err;
  }
  if (!tokens.refreshToken) throw new GoogleConnectError('Google sent no refresh token. Remove Parley from your Google account\'s third-party access and connect again.');
  const googleAccount = typeof tokens.idClaims?.email === 'string' ? tokens.idClaims.email.slice(0, 200) : '';
  const sealed = sealSourceConfig(opts.accountId, { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken });
  const patch = { ...sealed, accessTokenExpiresAt: (tokens.expiresAt ?? new Date(Date.now() + 3600_000)).toISOString(), googleAccount };
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(s)
      .set({ config: sql`${s.config} || ${JSON.stringify(patch)}::jsonb`, lastImportError: null, updatedAt: new Date() })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, source.id)))
      .returning();
    await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'review_source_updated', subjectType: 'review_source', subjectId: row.id, payload: { name: row.name, googleConnected: true } });
    await scheduleImport(tx, row);
    return row;
  });
}

/** Forgets the source's Google tokens (in one transaction), then revokes the grant at Google; a failed revoke is logged and said. */
export async function disconnectGoogleSource(opts: { accountId: number; actorId: number; sourceId: number }) {
  const source = await getSource({ accountId: opts.accountId, id: opts.sourceId });
  if (!source || source.kind !== 'google') return undefined;
  const open = openSourceConfig(source);
  await getDb().transaction(async (tx) => {
    await tx
      .update(s)
      .set({ config: sql`${s.config} - 'accessToken' - 'refreshToken' - 'accessTokenExpiresAt' - 'googleAccount'`, updatedAt: new Date() })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, source.id)));
    await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'review_source_updated', subjectType: 'review_source', subjectId: source.id, payload: { name: source.name, googleConnected: false } });
  });
  const google = googleOAuth2();
  const token = open.refreshToken ?? open.accessToken;
  if (!google || !token) return { revoked: false };
  try {
    await revokeToken(google, { token });
    return { revoked: true };
  } catch (err) {
    getLogger().warn({ sourceId: source.id, err: (err as Error).message }, 'google review source revoke failed');
    return { revoked: false };
  }
}

export async function deleteSource(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(s)
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'review_source_deleted', subjectType: 'review_source', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}

// ---------------------------------------------------------------------------------------------------------
// New reviews

/** Stores one review and writes review_received in the same transaction. */
async function insertReview(
  tx: Tx,
  opts: { accountId: number; source: ReviewSource; review: Omit<ExternalReview, 'externalId'> & { externalId: string | null }; email?: string | null; contactId?: number | null },
) {
  const [row] = await tx
    .insert(rv)
    .values({
      accountId: opts.accountId,
      sourceId: opts.source.id,
      externalId: opts.review.externalId,
      reviewerName: opts.review.reviewerName,
      reviewerEmail: opts.email ?? null,
      contactId: opts.contactId ?? null,
      rating: opts.review.rating,
      text: opts.review.text,
      replyText: opts.review.replyText,
      repliedAt: opts.review.repliedAt,
      reviewedAt: opts.review.reviewedAt,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) return null;
  await emitReviewReceived(tx, { accountId: opts.accountId, reviewId: row.id, source: opts.source.kind, rating: row.rating, text: row.text, contactId: row.contactId });
  return row;
}

/** A review left on the account's public review page; the reviewer becomes (or is matched to) a contact when they give an email. */
export async function submitPublicReview(opts: { accountId: number; source: ReviewSource; rating: number; name: string; email?: string | null; text?: string | null }) {
  if (opts.source.kind !== 'parley' || !opts.source.isActive) throw new Error('Not a review page');
  return getDb().transaction(async (tx) => {
    const email = opts.email?.trim().toLowerCase() || null;
    const contactId = email ? (await findOrCreateContact(tx, { accountId: opts.accountId, email, name: opts.name, source: 'review' })).contact.id : null;
    return insertReview(tx, {
      accountId: opts.accountId,
      source: opts.source,
      email,
      contactId,
      review: { externalId: null, reviewerName: opts.name.trim(), rating: opts.rating, text: opts.text?.trim() ?? '', reviewedAt: new Date(), replyText: null, repliedAt: null },
    });
  });
}

/**
 * Reads an external source through its API and stores the reviews not seen before (each with its
 * review_received), all in one transaction; a reply made on the source is copied onto a known review. The
 * outcome is written on the source: the time, or the error an admin sees in Settings.
 */
/** Renew the access token this long before it expires, so that a read never starts with a token about to lapse. */
const REFRESH_BEFORE_MS = 5 * 60 * 1000;

/**
 * Runs a Google call with a valid access token (ADR 086, 096): with a refresh token (from the consent flow), the
 * access token is renewed at Google's token endpoint through the one OAuth 2.0 client (ADR 097) when it is missing
 * or expires within five minutes, and once more if Google still answers 401; the new token, sealed, and its expiry
 * are kept on the source.
 */
async function withGoogleToken<T>(source: ReviewSource, call: (config: ReviewSourceConfig) => Promise<T>): Promise<T> {
  let config = openSourceConfig(source);
  const renew = async () => {
    const google = googleOAuth2();
    if (!google) throw new ReviewApiError('Renewing the Google access token needs GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET on this server', 400);
    let tokens;
    try {
      tokens = await refreshTokens(google, { refreshToken: config.refreshToken! });
    } catch (err) {
      if (err instanceof OAuth2Error) throw new ReviewApiError(`Renewing the Google access token failed: ${err.message}`, err.status || 400);
      throw err;
    }
    const expiresAt = (tokens.expiresAt ?? new Date(Date.now() + 3600_000)).toISOString();
    config = { ...config, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? config.refreshToken, accessTokenExpiresAt: expiresAt };
    const sealed = sealSourceConfig(source.accountId, { accessToken: config.accessToken, refreshToken: config.refreshToken });
    await getDb()
      .update(s)
      .set({ config: sql`${s.config} || ${JSON.stringify({ ...sealed, accessTokenExpiresAt: expiresAt })}::jsonb` })
      .where(and(eq(s.accountId, source.accountId), eq(s.id, source.id)));
  };
  if (config.refreshToken) {
    const expiresAt = config.accessTokenExpiresAt ? Date.parse(config.accessTokenExpiresAt) : NaN;
    if (!config.accessToken || (Number.isFinite(expiresAt) && expiresAt - Date.now() < REFRESH_BEFORE_MS)) await renew();
  }
  try {
    return await call(config);
  } catch (err) {
    if (!(err instanceof ReviewApiError) || err.status !== 401 || !config.refreshToken) throw err;
    await renew();
    return call(config);
  }
}

export async function importSourceReviews(opts: { accountId: number; sourceId: number; reschedule?: boolean }) {
  const source = await getSource({ accountId: opts.accountId, id: opts.sourceId });
  if (!source || !IMPORTING_KINDS.includes(source.kind as ReviewSourceKind)) return { imported: 0, skipped: true };
  let fetched: ExternalReview[];
  try {
    fetched =
      source.kind === 'google'
        ? await withGoogleToken(source, fetchGoogleReviews)
        : source.kind === 'facebook'
          ? await fetchFacebookRatings(openSourceConfig(source))
          : await fetchTrustpilotReviews(openSourceConfig(source));
  } catch (err) {
    const message = err instanceof ReviewApiError ? err.message : outboundFailure(`Reading ${SOURCE_KIND_LABELS[source.kind as ReviewSourceKind]}`, err, { sourceId: source.id });
    await getDb().transaction(async (tx) => {
      await tx
        .update(s)
        .set({ lastImportError: message.slice(0, 500) })
        .where(and(eq(s.accountId, opts.accountId), eq(s.id, source.id)));
      if (opts.reschedule) await scheduleImport(tx, source, new Date(Date.now() + IMPORT_INTERVAL_MS));
    });
    return { imported: 0, error: message };
  }
  return getDb().transaction(async (tx) => {
    let imported = 0;
    const known = fetched.length
      ? await tx
          .select({ id: rv.id, externalId: rv.externalId, replyText: rv.replyText })
          .from(rv)
          .where(and(eq(rv.accountId, opts.accountId), eq(rv.sourceId, source.id), inArray(rv.externalId, fetched.map((r) => r.externalId))))
      : [];
    const byId = new Map(known.map((k) => [k.externalId, k]));
    for (const review of fetched) {
      const seen = byId.get(review.externalId);
      if (seen) {
        if (review.replyText && review.replyText !== seen.replyText)
          await tx.update(rv).set({ replyText: review.replyText, repliedAt: review.repliedAt, replyError: null }).where(and(eq(rv.accountId, opts.accountId), eq(rv.id, seen.id)));
        continue;
      }
      if (await insertReview(tx, { accountId: opts.accountId, source, review })) imported++;
    }
    await tx
      .update(s)
      .set({ lastImportedAt: new Date(), lastImportError: null })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, source.id)));
    if (opts.reschedule) await scheduleImport(tx, source, new Date(Date.now() + IMPORT_INTERVAL_MS));
    return { imported };
  });
}

// ---------------------------------------------------------------------------------------------------------
// The list and a review

export type ReviewFilters = {
  sourceId?: number | null;
  rating?: number | null;
  replied?: 'yes' | 'no' | null;
  from?: Date | null;
  to?: Date | null;
  sort?: ReviewSort;
  dir?: 'asc' | 'desc';
};

function reviewWhere(accountId: number, f: ReviewFilters) {
  return and(
    eq(rv.accountId, accountId),
    f.sourceId ? eq(rv.sourceId, f.sourceId) : undefined,
    f.rating ? eq(rv.rating, f.rating) : undefined,
    f.replied === 'yes' ? isNotNull(rv.replyText) : f.replied === 'no' ? isNull(rv.replyText) : undefined,
    f.from ? gte(rv.reviewedAt, f.from) : undefined,
    f.to ? lt(rv.reviewedAt, f.to) : undefined,
  );
}

/** survey-builder.md section 9: page size 50, page 1, order asc by default. */
export async function listReviews(opts: { accountId: number; filters: ReviewFilters; page?: number }) {
  const page = Math.max(1, opts.page ?? 1);
  const where = reviewWhere(opts.accountId, opts.filters);
  const dir = opts.filters.dir === 'desc' ? desc : asc;
  const column = opts.filters.sort === 'rating' ? rv.rating : rv.reviewedAt;
  const db = getDb();
  const rows = await db
    .select({
      id: rv.id,
      reviewerName: rv.reviewerName,
      rating: rv.rating,
      text: rv.text,
      replyText: rv.replyText,
      isFeatured: rv.isFeatured,
      reviewedAt: rv.reviewedAt,
      sourceName: s.name,
      sourceKind: s.kind,
    })
    .from(rv)
    .innerJoin(s, and(eq(s.id, rv.sourceId), eq(s.accountId, opts.accountId)))
    .where(where)
    .orderBy(dir(column), dir(rv.id))
    .limit(REVIEWS_PAGE_SIZE)
    .offset((page - 1) * REVIEWS_PAGE_SIZE);
  const [{ total }] = await db.select({ total: count() }).from(rv).where(where);
  return { rows, total, page, pageSize: REVIEWS_PAGE_SIZE };
}

export async function getReview(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select({ review: rv, source: s, contact: { id: schema.contacts.id, firstName: schema.contacts.firstName, lastName: schema.contacts.lastName, email: schema.contacts.email } })
    .from(rv)
    .innerJoin(s, and(eq(s.id, rv.sourceId), eq(s.accountId, opts.accountId)))
    .leftJoin(schema.contacts, and(eq(schema.contacts.id, rv.contactId), eq(schema.contacts.accountId, opts.accountId)))
    .where(and(eq(rv.accountId, opts.accountId), eq(rv.id, opts.id)));
  return row;
}

/**
 * Saves the reply and, for a source whose API takes replies, posts it there. A refusal by the source keeps the
 * reply with the error on it (shown on the review page) rather than losing what the agent wrote.
 */
export async function replyToReview(opts: { accountId: number; actorId: number; id: number; reply: string }) {
  const found = await getReview(opts);
  if (!found) return undefined;
  const { review, source } = found;
  let replyError: string | null = null;
  if (review.externalId && canPostReply(source.kind, review.externalId)) {
    try {
      if (source.kind === 'google') await withGoogleToken(source, (config) => replyOnGoogle(config, review.externalId!, opts.reply));
      else if (source.kind === 'facebook') await replyOnFacebook(openSourceConfig(source), review.externalId, opts.reply);
      else await replyOnTrustpilot(openSourceConfig(source), review.externalId, opts.reply);
    } catch (err) {
      replyError = err instanceof ReviewApiError ? err.message : outboundFailure('Posting the reply', err, { reviewId: review.id });
    }
  }
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(rv)
      .set({ replyText: opts.reply, repliedAt: new Date(), replyError })
      .where(and(eq(rv.accountId, opts.accountId), eq(rv.id, review.id)))
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'review_replied',
      subjectType: 'review',
      subjectId: review.id,
      payload: { sourceKind: source.kind, posted: !replyError },
      actor: { type: 'user', id: opts.actorId },
    });
    return { review: row, replyError };
  });
}

export async function setReviewFeatured(opts: { accountId: number; actorId: number; id: number; isFeatured: boolean }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(rv)
      .set({ isFeatured: opts.isFeatured })
      .where(and(eq(rv.accountId, opts.accountId), eq(rv.id, opts.id)))
      .returning({ id: rv.id });
    if (!row) return undefined;
    await recordChange(tx, { ...opts, type: 'review_updated', subjectType: 'review', subjectId: row.id, payload: { isFeatured: opts.isFeatured } });
    return row;
  });
}

/** The reviews chosen for the testimonials snippet, newest first. */
export async function listTestimonials(opts: { accountId: number; limit?: number }) {
  return getDb()
    .select({ id: rv.id, reviewerName: rv.reviewerName, rating: rv.rating, text: rv.text, reviewedAt: rv.reviewedAt })
    .from(rv)
    .where(and(eq(rv.accountId, opts.accountId), eq(rv.isFeatured, true)))
    .orderBy(desc(rv.reviewedAt), desc(rv.id))
    .limit(opts.limit ?? 12);
}
