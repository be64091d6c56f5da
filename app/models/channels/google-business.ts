/** Shown on the Google Business settings screen; apart from google-business.server.ts, which the browser never gets. */
export const GOOGLE_BUSINESS_SHUTDOWN =
  'Google shut down Google Business Messages on 31 July 2024. Replies cannot be sent; this inbox only ingests messages in its format.';

/** Said on an inbox's own page, beside the notice: what still works and what cannot. */
export const GOOGLE_BUSINESS_REPLIES =
  'Replies stay impossible: Google turned the API off, so a reply to one of these conversations fails with this reason instead of being sent. Messages posted to the ingestion endpoint below still become conversations.';
