/** Plain values of the reviews area, apart from the zod schemas so that screens use them without shipping zod (ADR 027). */

/** Parley's own public page, and the external profiles (issue 17: Google Business Profile, Trustpilot, Facebook). */
export const REVIEW_SOURCE_KINDS = ['parley', 'google', 'trustpilot', 'facebook'] as const;
export type ReviewSourceKind = (typeof REVIEW_SOURCE_KINDS)[number];

export const SOURCE_KIND_LABELS: Record<ReviewSourceKind, string> = {
  parley: 'Parley review page',
  google: 'Google Business Profile',
  trustpilot: 'Trustpilot',
  facebook: 'Facebook',
};

/** Sources whose public API Parley imports from (ADR 068; Facebook's Graph API ratings, ADR 087). */
export const IMPORTING_KINDS: readonly ReviewSourceKind[] = ['google', 'trustpilot', 'facebook'];

/**
 * Sources Parley posts replies back to (ADR 096). Facebook: a Page answers a recommendation by commenting on its
 * story (POST /{open_graph_story_id}/comments), so only ratings imported with their story id can be answered.
 */
export const REPLYING_KINDS: readonly ReviewSourceKind[] = ['google', 'trustpilot', 'facebook'];

/** A Facebook rating's id without a story (`reviewer:time`, ADR 087) cannot be commented on through the Graph API. */
export function canPostReply(kind: string, externalId: string | null) {
  if (!externalId || !REPLYING_KINDS.includes(kind as ReviewSourceKind)) return false;
  return kind !== 'facebook' || !externalId.includes(':');
}

/** What the review page says when a reply stays in Parley: plainly, why it is not posted. */
export function replyNotPostedReason(kind: string, externalId: string | null) {
  if (kind === 'parley') return null;
  if (canPostReply(kind, externalId)) return null;
  if (kind === 'facebook') return 'Facebook does not let Parley answer this rating (it came without its story). The reply is kept here only: answer it on your Page.';
  return `This review was not imported through the ${SOURCE_KIND_LABELS[kind as ReviewSourceKind] ?? 'source'} API, so the reply is kept here only.`;
}

/** survey-builder.md section 9: review list default page size 50, page 1, order asc. */
export const REVIEWS_PAGE_SIZE = 50;
export const REVIEW_SORTS = ['date', 'rating'] as const;
export type ReviewSort = (typeof REVIEW_SORTS)[number];

export const REVIEW_LIMITS = { name: 100, text: 2000, reply: 4000, sourceName: 60, url: 500 } as const;

/** How often external sources are read (ADR 068). */
export const IMPORT_INTERVAL_MS = 60 * 60 * 1000;

export const REVIEW_MESSAGES = {
  rating: 'Please choose a rating from 1 to 5',
  name: 'Please tell us your name',
  email: 'Please enter a valid email',
  reply: 'Reply is required',
  replyNotPosted: (source: string) => `The reply is saved, but ${source} did not accept it`,
  url: 'Review URL must be a valid https:// address',
  locationName: 'Location must look like accounts/{account}/locations/{location}',
  businessUnitId: 'Business unit id is required',
  pageId: 'Page id must be the numeric id of your Facebook Page',
  token: 'Access token is required to import reviews',
} as const;

/** Review-request email placeholders (Settings → Reviews → Email setup). */
export const REVIEW_REQUEST_PLACEHOLDERS = ['{{name}}', '{{review_link}}', '{{company}}'] as const;

export const REVIEW_REQUEST_LIMITS = { senderName: 60, subject: 120, body: 4000, periodDays: 365 } as const;

/** What an account that never saved its email setup starts from. */
export const REVIEW_REQUEST_DEFAULTS = {
  isEnabled: false,
  senderName: '',
  subject: 'How did we do, {{name}}?',
  body: 'Hi {{name}},\n\nThank you for contacting {{company}}. If we helped, would you leave us a short review? It takes a minute:\n\n{{review_link}}\n\nThank you!',
  periodDays: 90,
} as const;

export const REVIEW_REQUEST_MESSAGES = {
  sender: 'Choose one of your verified sender addresses',
  source: 'Choose where customers leave their review',
  subject: 'Subject is required',
  body: 'Body is required',
  reviewLink: 'The body must contain {{review_link}}',
  period: 'Period must be a whole number of days from 1 to 365',
  minCsat: 'Choose a rating from 1 to 5, or everyone',
} as const;
