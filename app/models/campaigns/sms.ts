/**
 * SMS length as carriers count it: GSM 03.38 text (escape characters count twice) goes 160 characters in one
 * message and 153 per part when split; anything else is UCS-2, 70 and 67. Pure, so the screen counts as you type.
 */
const GSM = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENDED = new Set('^{}\\[~]|€');

export function smsLength(text: string) {
  let septets = 0;
  let gsm = true;
  for (const ch of text) {
    if (GSM.has(ch)) septets += 1;
    else if (GSM_EXTENDED.has(ch)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) return { encoding: 'GSM-7' as const, characters: septets, segments: septets <= 160 ? (septets ? 1 : 0) : Math.ceil(septets / 153) };
  const units = [...text].reduce((n, ch) => n + (ch.codePointAt(0)! > 0xffff ? 2 : 1), 0);
  return { encoding: 'UCS-2' as const, characters: units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}

/** Carrier and Twilio opt-out keywords; START and UNSTOP opt back in. */
export const SMS_STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT'] as const;
export const SMS_START_WORDS = ['START', 'UNSTOP', 'YES'] as const;

export function smsKeyword(text: string): 'stop' | 'start' | null {
  const word = text.trim().toUpperCase().replace(/[^A-Z]/g, '');
  if ((SMS_STOP_WORDS as readonly string[]).includes(word)) return 'stop';
  if ((SMS_START_WORDS as readonly string[]).includes(word)) return 'start';
  return null;
}

/** Every campaign SMS ends with how to opt out. */
export const SMS_OPT_OUT_FOOTER = '\nReply STOP to opt out.';
export const SMS_BODY_MAX = 1000;
