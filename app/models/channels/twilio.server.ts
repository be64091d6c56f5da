import { getConfig } from '../../utils/env.server';
import type { SmsSettings } from './sms.server';

/**
 * Twilio's REST API (2010-04-01), at TWILIO_API_BASE so that tests and self-hosters can point it at a stand-in.
 * Requests authenticate with HTTP basic auth: the Authentication Key (sid) and the Auth Token.
 */

const TIMEOUT_MS = 15_000;

export class TwilioError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

function authHeader(sid: string, authToken: string) {
  return `Basic ${Buffer.from(`${sid}:${authToken}`).toString('base64')}`;
}

async function twilioFetch(path: string, opts: { sid: string; authToken: string; form?: URLSearchParams }) {
  const url = `${getConfig().twilioApiBase}/2010-04-01${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: opts.form ? 'POST' : 'GET',
      headers: {
        authorization: authHeader(opts.sid, opts.authToken),
        accept: 'application/json',
        ...(opts.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: opts.form?.toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new TwilioError(`Twilio could not be reached (${(err as Error).message})`, 0);
  }
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    // Twilio's error body: { code, message, more_info, status }. The message never contains the credentials.
    const detail = typeof body?.message === 'string' ? body.message : res.statusText;
    throw new TwilioError(`Twilio answered ${res.status}: ${detail}${body?.code ? ` (error ${body.code})` : ''}`, res.status);
  }
  return body ?? {};
}

/** The account's phone numbers that can receive SMS (IncomingPhoneNumbers), for the SMS form's select. */
export async function fetchTwilioNumbers(opts: { accountSID: string; sid: string; authToken: string }) {
  const numbers: { phoneNumber: string; friendlyName: string }[] = [];
  let path: string | null = `/Accounts/${encodeURIComponent(opts.accountSID)}/IncomingPhoneNumbers.json?PageSize=100`;
  // At most five pages: 500 numbers is plenty for a select.
  for (let page = 0; path && page < 5; page++) {
    const body = await twilioFetch(path, opts);
    const list = Array.isArray(body.incoming_phone_numbers) ? (body.incoming_phone_numbers as Record<string, unknown>[]) : [];
    for (const n of list) {
      const caps = (n.capabilities ?? {}) as { sms?: boolean };
      if (typeof n.phone_number === 'string' && caps.sms !== false)
        numbers.push({ phoneNumber: n.phone_number, friendlyName: String(n.friendly_name ?? n.phone_number) });
    }
    const next = typeof body.next_page_uri === 'string' ? body.next_page_uri : null;
    path = next ? next.replace(/^\/2010-04-01/, '') : null;
  }
  return numbers;
}

/** Sends one SMS; Twilio reports its fate to the status callback. Returns Twilio's MessageSid. */
export async function sendTwilioSms(opts: { settings: SmsSettings; to: string; body: string; statusCallback: string }) {
  const { accountSID, sid, authToken, phoneNumber } = opts.settings;
  if (!accountSID || !sid || !authToken) throw new Error('The Twilio inbox has no credentials');
  const form = new URLSearchParams({ To: opts.to, From: phoneNumber, Body: opts.body, StatusCallback: opts.statusCallback });
  const answer = await twilioFetch(`/Accounts/${encodeURIComponent(accountSID)}/Messages.json`, { sid, authToken, form });
  if (typeof answer.sid !== 'string') throw new TwilioError('Twilio answered without a message sid', 502);
  return { externalId: answer.sid, status: String(answer.status ?? 'queued') };
}

/** Twilio's MessageStatus values, as Parley's delivery status (intermediate states change nothing). */
export function deliveryStatusOfTwilio(status: string): 'sent' | 'delivered' | 'failed' | null {
  switch (status) {
    case 'sent':
      return 'sent';
    case 'delivered':
    case 'read':
      return 'delivered';
    case 'failed':
    case 'undelivered':
    case 'canceled':
      return 'failed';
    default:
      return null;
  }
}
