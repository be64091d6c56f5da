import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for Twilio's REST API (2010-04-01) and for Twilio's webhook requests, speaking Twilio's wire format:
 * form-encoded requests with HTTP basic auth, JSON answers and errors ({ code, message, more_info, status }), and
 * webhooks signed with X-Twilio-Signature. The signer is written here from Twilio's documentation (HMAC-SHA1 of
 * the URL followed by each POST parameter name and value, sorted by name, keyed by the auth token, in base64),
 * not imported from Parley, so that the two implementations check each other.
 */

export type TwilioAccount = {
  accountSid: string;
  authToken: string;
  numbers: { phone_number: string; friendly_name: string; sms?: boolean }[];
  /** API keys (SK…) and their secrets: they authenticate API calls as the account, as the Auth Token does. */
  apiKeys?: { sid: string; secret: string }[];
  status?: 'active' | 'suspended' | 'closed';
};
export type SentSms = { accountSid: string; auth: string; params: Record<string, string>; sid: string };

export function twilioSign(authToken: string, url: string, params: Record<string, string>) {
  let data = url;
  for (const key of Object.keys(params).sort()) data += key + params[key];
  return crypto.createHmac('sha1', Buffer.from(authToken, 'utf-8')).update(Buffer.from(data, 'utf-8')).digest('base64');
}

export async function startTwilioStandIn(opts: { port?: number } = {}) {
  const accounts = new Map<string, TwilioAccount>();
  const sent: SentSms[] = [];
  let failNextSend: { status: number; code: number; message: string } | null = null;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const m = /^\/2010-04-01\/Accounts\/([^/]+?)(?:\/(IncomingPhoneNumbers|Messages))?\.json$/.exec(url.pathname);
      if (!m) return error(res, 404, 20404, 'The requested resource was not found');
      const account = accounts.get(decodeURIComponent(m[1]));
      const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const [user, pass] = auth ? Buffer.from(auth, 'base64').toString('utf8').split(':') : [];
      // As Twilio: the Account SID with its Auth Token, or one of the account's API keys with the key's secret.
      const authenticated =
        account && user && (user === account.accountSid ? pass === account.authToken : (account.apiKeys ?? []).some((k) => k.sid === user && k.secret === pass));
      if (!account || !authenticated) return error(res, 401, 20003, 'Authenticate');
      if (!m[2] && req.method === 'GET') {
        return json(res, 200, {
          sid: account.accountSid,
          friendly_name: `${account.accountSid} account`,
          status: account.status ?? 'active',
          type: 'Full',
          date_created: new Date(0).toUTCString(),
          uri: `/2010-04-01/Accounts/${account.accountSid}.json`,
        });
      }
      if (m[2] === 'IncomingPhoneNumbers' && req.method === 'GET') {
        return json(res, 200, {
          incoming_phone_numbers: account.numbers.map((n) => ({
            sid: `PN${crypto.randomBytes(16).toString('hex')}`,
            account_sid: account.accountSid,
            phone_number: n.phone_number,
            friendly_name: n.friendly_name,
            capabilities: { voice: true, sms: n.sms ?? true, mms: false },
          })),
          next_page_uri: null,
          page: 0,
          page_size: 100,
        });
      }
      if (m[2] === 'Messages' && req.method === 'POST') {
        if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return error(res, 400, 20001, 'Bad content type');
        const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        if (failNextSend) {
          const f = failNextSend;
          failNextSend = null;
          return error(res, f.status, f.code, f.message);
        }
        if (!params.To) return error(res, 400, 21604, "A 'To' phone number is required.");
        if (!params.From || !account.numbers.some((n) => n.phone_number === params.From)) return error(res, 400, 21606, "The 'From' phone number provided is not a valid message-capable Twilio phone number for this account.");
        if (!params.Body) return error(res, 400, 21602, 'Message body is required.');
        const sid = `SM${crypto.randomBytes(16).toString('hex')}`;
        sent.push({ accountSid: account.accountSid, auth: user, params, sid });
        return json(res, 201, {
          sid,
          account_sid: account.accountSid,
          to: params.To,
          from: params.From,
          body: params.Body,
          status: 'queued',
          num_segments: '1',
          direction: 'outbound-api',
          date_created: new Date().toUTCString(),
          uri: `/2010-04-01/Accounts/${account.accountSid}/Messages/${sid}.json`,
        });
      }
      return error(res, 405, 20004, 'Method not allowed');
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  /** Posts a webhook as Twilio does: form-encoded, signed over the exact URL it posts to. */
  async function postWebhook(url: string, params: Record<string, string>, opts: { authToken: string; signature?: string; connectPort: number }) {
    const body = new URLSearchParams(params).toString();
    const target = new URL(url);
    return new Promise<{ status: number; text: string; contentType: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          // Twilio reaches Parley at the public URL; here the public host is served on a loopback port.
          port: opts.connectPort,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: {
            host: target.host,
            'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
            'user-agent': 'TwilioProxy/1.1',
            'x-twilio-signature': opts.signature ?? twilioSign(opts.authToken, url, params),
            'i-twilio-idempotency-token': crypto.randomUUID(),
          },
        },
        (res) => {
          const out: Buffer[] = [];
          res.on('data', (c) => out.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(out).toString('utf8'), contentType: String(res.headers['content-type'] ?? '') }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    sent,
    addAccount(account: TwilioAccount) {
      accounts.set(account.accountSid, account);
    },
    failNextSend(f: { status: number; code: number; message: string }) {
      failNextSend = f;
    },
    /** An incoming SMS, as Twilio posts it to the number's webhook. */
    incomingSms(url: string, opts: { account: TwilioAccount; from: string; to: string; body: string; sid?: string; signature?: string; connectPort: number }) {
      const params = {
        ToCountry: 'US',
        SmsMessageSid: opts.sid ?? `SM${crypto.randomBytes(16).toString('hex')}`,
        NumMedia: '0',
        SmsSid: opts.sid ?? '',
        SmsStatus: 'received',
        Body: opts.body,
        To: opts.to,
        NumSegments: '1',
        MessageSid: opts.sid ?? '',
        AccountSid: opts.account.accountSid,
        From: opts.from,
        ApiVersion: '2010-04-01',
      };
      params.SmsSid = params.SmsMessageSid;
      params.MessageSid = params.SmsMessageSid;
      return postWebhook(url, params, { authToken: opts.account.authToken, signature: opts.signature, connectPort: opts.connectPort }).then((r) => ({ ...r, sid: params.MessageSid }));
    },
    /** The StatusCallback Twilio makes for a message it was asked to send. */
    statusCallback(message: SentSms, status: 'sent' | 'delivered' | 'undelivered' | 'failed', account: TwilioAccount, connectPort: number, errorCode?: string) {
      const params: Record<string, string> = {
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        AccountSid: account.accountSid,
        From: message.params.From,
        To: message.params.To,
        ApiVersion: '2010-04-01',
        ...(errorCode ? { ErrorCode: errorCode } : {}),
      };
      return postWebhook(message.params.StatusCallback, params, { authToken: account.authToken, connectPort });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
