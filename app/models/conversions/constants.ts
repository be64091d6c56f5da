export const CONVERSION_LIMITS = { nameMax: 100, eventNameMax: 60, descriptionMax: 500, attributionDaysMax: 365 };
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
