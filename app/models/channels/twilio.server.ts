import { getConfig } from '../../utils/env.server';
import { guardedRequest, type GuardedResponse } from '../../utils/outbound-guard.server';
import type { SmsSettings } from './sms.server';
import { parseJsonObject } from '../../utils/json';

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
  let res: GuardedResponse;
  try {
    // Through the outbound guard (ADR 021), like every connection Parley opens: no redirect followed.
    res = await guardedRequest(url, {
      method: opts.form ? 'POST' : 'GET',
      headers: {
        authorization: authHeader(opts.sid, opts.authToken),
        accept: 'application/json',
        ...(opts.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: opts.form?.toString(),
      timeoutMs: TIMEOUT_MS,
      maxBytes: 1024 * 1024,
    });
  } catch (err) {
    // The reason in a few words (refused, timed out, no such host), never a credential: the request carried them in a header only.
    throw new TwilioError(`Twilio could not be reached (${(err as Error).message})`, 0);
  }
  const body = parseJsonObject(res.text);
  if (!res.ok) {
    // Twilio's error body: { code, message, more_info, status }. The message never contains the credentials.
    const detail = typeof body?.message === 'string' ? body.message : `HTTP ${res.status}`;
    throw new TwilioError(`Twilio answered ${res.status}: ${detail}${body?.code ? ` (error ${body.code})` : ''}`, res.status);
  }
  return body ?? {};
}

/**
 * What saving an SMS inbox checks with Twilio before anything is stored (ADR 039): the credentials reach the
 * account's numbers and the chosen number is one of them; with an API key, the Auth Token given for signatures is
 * the account's own (Twilio accepts it for the account itself). Undefined when all is well, else the field and
 * the words for the form.
 */
export async function checkTwilioSettings(opts: { accountSID: string; sid: string; authToken: string; phoneNumber: string; webhookAuthToken?: string }) {
  type Problem = { field: 'authToken' | 'phoneNumber' | 'webhookAuthToken'; message: string };
  try {
    const numbers = await fetchTwilioNumbers(opts);
    if (!numbers.some((n) => n.phoneNumber === opts.phoneNumber))
      return { field: 'phoneNumber', message: `${opts.phoneNumber} is not an SMS number of this Twilio account` } satisfies Problem;
  } catch (err) {
    if (!(err instanceof TwilioError)) throw err;
    return { field: 'authToken', message: err.status === 401 ? 'Twilio refused these credentials (Authentication Key and Auth Token)' : err.message } satisfies Problem;
  }
  if (opts.webhookAuthToken) {
    try {
      const account = await twilioFetch(`/Accounts/${encodeURIComponent(opts.accountSID)}.json`, { sid: opts.accountSID, authToken: opts.webhookAuthToken });
      if (account.status !== undefined && account.status !== 'active')
        return { field: 'webhookAuthToken', message: `The Twilio account is ${String(account.status)}` } satisfies Problem;
    } catch (err) {
      if (!(err instanceof TwilioError)) throw err;
      return { field: 'webhookAuthToken', message: err.status === 401 ? "Twilio refused this Auth Token: it is not the account's Auth Token" : err.message } satisfies Problem;
    }
  }
  return undefined;
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
