import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * Phone numbers as people type them ("+49 30 1234567", "(030) 123-4567", "0049 30 1234567"). An international
 * number (leading + or 00) is read by libphonenumber and stored in one form, E.164 ("+49301234567"); a national
 * number without a country code cannot be placed, so it is stored as its digits ("0301234567"), and so is an
 * international one the library's tables do not know ("+" and its digits). The
 * specification's rule (digits only, a length range) is then applied to the digits of that form. ADR 036.
 */

/** Separators people type between digits. Anything else (letters, other signs) is not a phone number. */
const TYPED = /^\+?[\d\s().\-/]+$/;

export type PhoneReading = { ok: true; value: string } | { ok: false };

export function normalisePhone(raw: string): PhoneReading {
  let typed = raw.trim();
  if (!TYPED.test(typed)) return { ok: false };
  if (typed.startsWith('00')) typed = `+${typed.slice(2)}`;
  if (typed.startsWith('+')) {
    // A number libphonenumber does not know (a new range, a short code) keeps its digits: the specification's
    // rule, not the library's tables, decides what is refused.
    const parsed = parsePhoneNumberFromString(typed);
    return { ok: true, value: parsed?.isPossible() ? parsed.number : `+${typed.replace(/\D/g, '')}` };
  }
  return { ok: true, value: typed.replace(/\D/g, '') };
}

/** The digits the specification's length rule counts (the stored form without its +). */
export function phoneDigits(stored: string) {
  return stored.replace(/^\+/, '');
}
