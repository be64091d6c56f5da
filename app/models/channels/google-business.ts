/** Shown on the Google Business settings screen; apart from google-business.server.ts, which the browser never gets. */
export const GOOGLE_BUSINESS_SHUTDOWN =
  'Google shut down Google Business Messages on 31 July 2024. Replies cannot be sent; this inbox only ingests messages in its format.';
