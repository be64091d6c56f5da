import { guardedRequest } from '../../utils/outbound-guard.server';
import type { ReviewSourceConfig } from '../../../db/schema/reviews';

/**
 * Clients of the review sources' public APIs (ADR 068), through the outbound guard (public addresses only unless
 * PARLEY_ALLOW_PRIVATE_DESTINATIONS), with a timeout and a size limit. Each returns reviews in one shape.
 */

export type ExternalReview = {
  externalId: string;
  reviewerName: string;
  rating: number;
  text: string;
  reviewedAt: Date;
  replyText: string | null;
  repliedAt: Date | null;
};

export class ReviewApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 15_000;
const MAX_BYTES = 2 * 1024 * 1024;
/** A runaway cursor stops here: 20 pages of 50 per run, the rest comes on the next run. */
const MAX_PAGES = 20;

async function callJson(url: string, opts: { method?: string; token?: string; body?: unknown; what: string }) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const res = await guardedRequest(url, { method: opts.method ?? 'GET', headers, body, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES });
  if (!res.ok) {
    let message = `${opts.what} answered ${res.status}`;
    try {
      const err = JSON.parse(res.text) as { error?: { message?: string }; message?: string };
      const detail = err.error?.message ?? err.message;
      if (detail) message += `: ${String(detail).slice(0, 200)}`;
    } catch {
      // not JSON: the status says enough
    }
    throw new ReviewApiError(message, res.status);
  }
  try {
    return res.text ? (JSON.parse(res.text) as unknown) : {};
  } catch {
    throw new ReviewApiError(`${opts.what} sent an answer that is not JSON`, res.status);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Google Business Profile (My Business API v4: accounts.locations.reviews list and updateReply)

const GOOGLE_BASE = 'https://mybusiness.googleapis.com/v4';
const STARS: Record<string, number> = { ONE: 1, TWO: 2, THREE: 3, FOUR: 4, FIVE: 5 };

type GoogleReview = {
  name?: string;
  reviewId?: string;
  reviewer?: { displayName?: string; isAnonymous?: boolean };
  starRating?: string;
  comment?: string;
  createTime?: string;
  updateTime?: string;
  reviewReply?: { comment?: string; updateTime?: string } | null;
};

function fromGoogle(r: GoogleReview): ExternalReview | null {
  const rating = STARS[r.starRating ?? ''];
  // The review's resource name is what a reply is posted to; keep it whole.
  if (!r.name || !rating) return null;
  return {
    externalId: r.name,
    reviewerName: r.reviewer?.isAnonymous ? 'A Google user' : (r.reviewer?.displayName ?? 'A Google user').slice(0, 100),
    rating,
    // Google appends a machine translation after this marker; the original is what the customer wrote.
    text: (r.comment ?? '').split('\n\n(Translated by Google)')[0].slice(0, 4000),
    reviewedAt: new Date(r.createTime ?? Date.now()),
    replyText: r.reviewReply?.comment ?? null,
    repliedAt: r.reviewReply?.updateTime ? new Date(r.reviewReply.updateTime) : null,
  };
}

export async function fetchGoogleReviews(config: ReviewSourceConfig): Promise<ExternalReview[]> {
  if (!config.locationName || !config.accessToken) throw new ReviewApiError('Google Business Profile needs a location and an access token', 400);
  const base = config.apiBase ?? GOOGLE_BASE;
  const out: ExternalReview[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(`${base}/${config.locationName}/reviews`);
    url.searchParams.set('pageSize', '50');
    url.searchParams.set('orderBy', 'updateTime desc');
    if (pageToken) url.searchParams.set('pageToken', pageToken);
    const body = (await callJson(url.toString(), { token: config.accessToken, what: 'Google Business Profile' })) as { reviews?: GoogleReview[]; nextPageToken?: string };
    for (const r of body.reviews ?? []) {
      const review = fromGoogle(r);
      if (review) out.push(review);
    }
    pageToken = body.nextPageToken;
    if (!pageToken) break;
  }
  return out;
}

export async function replyOnGoogle(config: ReviewSourceConfig, externalId: string, comment: string) {
  if (!config.accessToken) throw new ReviewApiError('Google Business Profile needs an access token', 400);
  const base = config.apiBase ?? GOOGLE_BASE;
  await callJson(`${base}/${externalId}/reply`, { method: 'PUT', token: config.accessToken, body: { comment }, what: 'Google Business Profile' });
}

// ---------------------------------------------------------------------------------------------------------
// Trustpilot (public Business Units API for reading; the private Reviews API for replies)

const TRUSTPILOT_BASE = 'https://api.trustpilot.com/v1';

type TrustpilotReview = {
  id?: string;
  stars?: number;
  title?: string;
  text?: string;
  createdAt?: string;
  consumer?: { displayName?: string };
  companyReply?: { text?: string; createdAt?: string } | null;
};

function fromTrustpilot(r: TrustpilotReview): ExternalReview | null {
  if (!r.id || !Number.isInteger(r.stars) || r.stars! < 1 || r.stars! > 5) return null;
  const text = [r.title, r.text].filter(Boolean).join('\n\n');
  return {
    externalId: r.id,
    reviewerName: (r.consumer?.displayName ?? 'A Trustpilot user').slice(0, 100),
    rating: r.stars!,
    text: text.slice(0, 4000),
    reviewedAt: new Date(r.createdAt ?? Date.now()),
    replyText: r.companyReply?.text ?? null,
    repliedAt: r.companyReply?.createdAt ? new Date(r.companyReply.createdAt) : null,
  };
}

export async function fetchTrustpilotReviews(config: ReviewSourceConfig): Promise<ExternalReview[]> {
  if (!config.businessUnitId || !config.apiKey) throw new ReviewApiError('Trustpilot needs a business unit id and an API key', 400);
  const base = config.apiBase ?? TRUSTPILOT_BASE;
  const out: ExternalReview[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const url = new URL(`${base}/business-units/${encodeURIComponent(config.businessUnitId)}/reviews`);
    url.searchParams.set('apikey', config.apiKey);
    url.searchParams.set('perPage', '100');
    url.searchParams.set('page', String(page));
    url.searchParams.set('orderBy', 'createdat.desc');
    const body = (await callJson(url.toString(), { what: 'Trustpilot' })) as { reviews?: TrustpilotReview[]; links?: { rel?: string }[] };
    for (const r of body.reviews ?? []) {
      const review = fromTrustpilot(r);
      if (review) out.push(review);
    }
    if (!(body.links ?? []).some((l) => l.rel === 'next-page')) break;
  }
  return out;
}

export async function replyOnTrustpilot(config: ReviewSourceConfig, externalId: string, message: string) {
  if (!config.accessToken) throw new ReviewApiError('Trustpilot replies need an access token', 400);
  const base = config.apiBase ?? TRUSTPILOT_BASE;
  await callJson(`${base}/private/reviews/${encodeURIComponent(externalId)}/reply`, { method: 'POST', token: config.accessToken, body: { message }, what: 'Trustpilot' });
}

// ---------------------------------------------------------------------------------------------------------
// Facebook Pages (Graph API: GET /{page-id}/ratings with a Page access token, cursor paging through paging.next)

const FACEBOOK_BASE = 'https://graph.facebook.com/v19.0';

type FacebookRating = {
  created_time?: string;
  recommendation_type?: 'positive' | 'negative';
  /** Star ratings from before recommendations (2018); absent on recommendations. */
  rating?: number;
  review_text?: string;
  reviewer?: { id?: string; name?: string };
  open_graph_story?: { id?: string };
};

function fromFacebook(r: FacebookRating): ExternalReview | null {
  // A recommendation has no stars: positive counts as 5, negative as 1 (ADR 087).
  const rating = Number.isInteger(r.rating) && r.rating! >= 1 && r.rating! <= 5 ? r.rating! : r.recommendation_type === 'positive' ? 5 : r.recommendation_type === 'negative' ? 1 : null;
  const id = r.open_graph_story?.id ?? (r.reviewer?.id && r.created_time ? `${r.reviewer.id}:${r.created_time}` : null);
  if (!rating || !id) return null;
  return {
    externalId: id,
    reviewerName: (r.reviewer?.name ?? 'A Facebook user').slice(0, 100),
    rating,
    text: (r.review_text ?? '').slice(0, 4000),
    reviewedAt: new Date(r.created_time ?? Date.now()),
    replyText: null,
    repliedAt: null,
  };
}

export async function fetchFacebookRatings(config: ReviewSourceConfig): Promise<ExternalReview[]> {
  if (!config.pageId || !config.accessToken) throw new ReviewApiError('Facebook needs a Page id and a Page access token', 400);
  const base = config.apiBase ?? FACEBOOK_BASE;
  const first = new URL(`${base}/${encodeURIComponent(config.pageId)}/ratings`);
  first.searchParams.set('fields', 'created_time,recommendation_type,rating,review_text,reviewer{id,name},open_graph_story{id}');
  first.searchParams.set('limit', '100');
  const out: ExternalReview[] = [];
  let url: string | undefined = first.toString();
  for (let page = 0; page < MAX_PAGES && url; page++) {
    const body = (await callJson(url, { token: config.accessToken, what: 'Facebook' })) as { data?: FacebookRating[]; paging?: { next?: string; cursors?: { after?: string } } };
    for (const r of body.data ?? []) {
      const review = fromFacebook(r);
      if (review) out.push(review);
    }
    // Follow the cursor on our own base (paging.next names graph.facebook.com and carries the token in the query).
    const after = body.paging?.next ? body.paging.cursors?.after : undefined;
    if (!after) break;
    const next = new URL(first);
    next.searchParams.set('after', after);
    url = next.toString();
  }
  return out;
}

/**
 * A Page's public answer to a rating: a comment on the rating's story (POST /{open_graph_story_id}/comments with the
 * Page access token and its pages_manage_engagement permission). Graph answers { id } for the new comment.
 */
export async function replyOnFacebook(config: ReviewSourceConfig, externalId: string, message: string) {
  if (!config.accessToken) throw new ReviewApiError('Facebook replies need a Page access token', 400);
  if (externalId.includes(':')) throw new ReviewApiError('Facebook does not let Parley answer this rating: it came without its story', 400);
  const base = config.apiBase ?? FACEBOOK_BASE;
  await callJson(`${base}/${encodeURIComponent(externalId)}/comments`, { method: 'POST', token: config.accessToken, body: { message }, what: 'Facebook' });
}
