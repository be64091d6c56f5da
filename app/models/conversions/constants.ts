export const CONVERSION_LIMITS = { nameMax: 100, eventNameMax: 60, descriptionMax: 500, attributionDaysMax: 365, urlValueMax: 500 };

/** How a URL goal compares a viewed page's URL with its value (ADR 120). */
export const URL_OPS = ['contains', 'equals', 'starts_with'] as const;
export type UrlOp = (typeof URL_OPS)[number];
export const URL_OP_LABELS: Record<UrlOp, string> = { contains: 'contains', equals: 'is', starts_with: 'starts with' };

/**
 * Whether a viewed page reaches a URL goal. A value starting with "/" is compared with the page's path (no query
 * string or fragment), anything else with the whole URL; case-insensitive; a trailing slash is ignored for "is".
 */
export function urlMatches(rule: { op: UrlOp; value: string }, url: string) {
  const value = rule.value.trim().toLowerCase();
  if (!value) return false;
  let subject = url.trim().toLowerCase();
  if (value.startsWith('/')) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/.exec(subject);
    subject = m ? m[1] || '/' : subject.split(/[?#]/)[0];
  }
  if (rule.op === 'contains') return subject.includes(value);
  if (rule.op === 'starts_with') return subject.startsWith(value);
  const strip = (s: string) => (s.length > 1 ? s.replace(/\/+$/, '') : s);
  return strip(subject) === strip(value);
}
export const GOAL_NAME_TAKEN = 'A goal with this name already exists';
export const TRACKER_NAME_TAKEN = 'A sales tracker with this name already exists';
/** Currencies with no minor unit (ISO 4217 exponent 0); a few with 3 decimals. Everything else has 2. */
const EXPONENT: Record<string, number> = { JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, UGX: 0, XAF: 0, XOF: 0, BHD: 3, KWD: 3, OMR: 3, JOD: 3, TND: 3 };
export const currencyExponent = (currency: string) => EXPONENT[currency.toUpperCase()] ?? 2;
export function toMinor(amount: number, currency: string) {
  return Math.round(amount * 10 ** currencyExponent(currency));
}
export function formatMoney(minor: number, currency: string) {
  const e = currencyExponent(currency);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: e, maximumFractionDigits: e }).format(minor / 10 ** e);
  } catch {
    return `${(minor / 10 ** e).toFixed(e)} ${currency}`;
  }
}
