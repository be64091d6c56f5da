import { data } from '@remix-run/node';
import { accountHasFeature } from '../accounts/accounts.server';
import { areaKeyOf } from './areas';
import { FEATURE_DENIED_MESSAGE, type FeatureKey } from './catalogue';

/**
 * Whether the account's plan has the feature and its area (`channels/sms` needs `channels/enabled` too): a plan
 * without an area has none of the area's surfaces, whatever finer flags it lists (ADR 157).
 */
export async function planAllows(opts: { accountId: number; key: FeatureKey }): Promise<boolean> {
  const area = areaKeyOf(opts.key);
  if (area !== opts.key && !(await accountHasFeature({ accountId: opts.accountId, key: area }))) return false;
  return accountHasFeature(opts);
}

/**
 * The plan guard of the surfaces no signed-in user opens — the widget and its offline form, chat pages, SMS and
 * social webhooks, public surveys and ratings, forms, review pages, meeting pages, the help centre, the REST API
 * (ADR 157). The same flags as the agent screens of the feature, judged on the server for every request; a refusal
 * is a 403 with the specification's message: plain text for machine surfaces (the widget shows it, the API wraps it),
 * the shared error page ("Upgrade required") for pages. Nothing is deleted: a plan that has the feature again serves
 * the same data again.
 */
export async function requirePlanFeature(opts: { accountId: number; key: FeatureKey; page?: boolean }): Promise<void> {
  if (await planAllows(opts)) return;
  if (opts.page) throw data({ denied: 'feature' as const, message: FEATURE_DENIED_MESSAGE }, { status: 403 });
  throw new Response(FEATURE_DENIED_MESSAGE, { status: 403, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

/**
 * The flag of the email channel (ADR 157 addendum): mail lands in the Inbox, so it is the Inbox's area,
 * `conversation/enabled`. Email inboxes' settings stay open on every plan (they are the base of the Inbox), so
 * `channels/enabled`, which gates the other channels, does not govern mail.
 */
export const EMAIL_CHANNEL_FEATURE: FeatureKey = 'conversation/enabled';

/** What an ingestion point throws for an account whose plan lacks the channel; each channel answers in its own words. */
export class PlanFeatureDeniedError extends Error {
  constructor(
    public readonly accountId: number,
    public readonly key: FeatureKey,
  ) {
    super(FEATURE_DENIED_MESSAGE);
  }
}

/** The plan guard of an ingestion point that is not a request (mail, the engine): throws PlanFeatureDeniedError. */
export async function assertPlanFeature(opts: { accountId: number; key: FeatureKey }): Promise<void> {
  if (!(await planAllows(opts))) throw new PlanFeatureDeniedError(opts.accountId, opts.key);
}
