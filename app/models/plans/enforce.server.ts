import { data } from '@remix-run/node';
import { accountHasFeature } from '../accounts/accounts.server';
import { FEATURE_DENIED_MESSAGE, type FeatureKey } from './catalogue';

/**
 * The plan guard of the surfaces no signed-in user opens — the widget and its offline form, chat pages, SMS webhooks,
 * public surveys and ratings, forms, review pages, the help centre, the REST API (ADR 157). The same flags as the
 * agent screens of the feature, judged on the server for every request; a refusal is a 403 with the specification's
 * message: plain text for machine surfaces (the widget shows it, the API wraps it), the shared error page for pages.
 * Nothing is deleted: a plan that has the feature again serves the same data again.
 */
export async function requirePlanFeature(opts: { accountId: number; key: FeatureKey; page?: boolean }): Promise<void> {
  if (await accountHasFeature(opts)) return;
  if (opts.page) throw data({ denied: 'feature' as const, message: FEATURE_DENIED_MESSAGE }, { status: 403 });
  throw new Response(FEATURE_DENIED_MESSAGE, { status: 403, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}
