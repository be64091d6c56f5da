import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { ensurePlans } from '../accounts/accounts.server';

/**
 * The operator prices plans with the CLI (`parley plan price`, ADR 074): an installation's operator is the one
 * who charges, not any account's owner, so there is no web page for it.
 */
export type PlanPriceChange = { seatPriceMonthly?: number; seatPriceYearly?: number; currency?: string; sellable?: boolean; trialDays?: number };

/** "19", "19.5", "19.00" -> 1900 cents; anything else is refused with words. */
function cents(value: string, name: string) {
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(value)) throw new Error(`--${name} must be an amount such as 19 or 19.50 (got "${value}").`);
  return Math.round(Number(value) * 100);
}

export function parsePlanPriceOptions(values: Record<string, string | boolean | undefined>): PlanPriceChange {
  const change: PlanPriceChange = {};
  if (typeof values.monthly === 'string') change.seatPriceMonthly = cents(values.monthly, 'monthly');
  if (typeof values.yearly === 'string') change.seatPriceYearly = cents(values.yearly, 'yearly');
  if (typeof values.currency === 'string') {
    if (!/^[a-z]{3}$/i.test(values.currency)) throw new Error(`--currency must be a three-letter ISO 4217 code such as usd or eur (got "${values.currency}").`);
    change.currency = values.currency.toLowerCase();
  }
  if (typeof values.sellable === 'string') {
    if (values.sellable !== 'yes' && values.sellable !== 'no') throw new Error(`--sellable must be yes or no (got "${values.sellable}").`);
    change.sellable = values.sellable === 'yes';
  }
  if (typeof values['trial-days'] === 'string') {
    if (!/^\d{1,3}$/.test(values['trial-days'])) throw new Error(`--trial-days must be a number of days from 0 to 999 (got "${values['trial-days']}").`);
    change.trialDays = Number(values['trial-days']);
  }
  if (Object.keys(change).length === 0) throw new Error('"plan price" needs at least one of --monthly, --yearly, --currency, --sellable, --trial-days.');
  return change;
}

export async function setPlanPrice(opts: { planKey: string; change: PlanPriceChange }) {
  await ensurePlans();
  const [plan] = await getDb().update(schema.plans).set(opts.change).where(eq(schema.plans.key, opts.planKey)).returning();
  return plan ?? null;
}
