import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/* Apart from phone.ts, which the public contact page uses in the browser: loaders format numbers, so the screens
   that show them do not ship libphonenumber's tables (ADR 027). */

/** A stored number as people read it: "+49 30 1234567"; a national number as stored. */
export function formatPhone(stored: string | null | undefined) {
  if (!stored) return '';
  if (!stored.startsWith('+')) return stored;
  return parsePhoneNumberFromString(stored)?.formatInternational() ?? stored;
}
