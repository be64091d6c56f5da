import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for Meta's Graph API Send API (`POST /v19.0/me/messages?access_token=…`) that answers as Meta does
 * ({ recipient_id, message_id } or { error: { message, type, code } }), and a signer for page webhooks written
 * from Meta's documentation: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 of the raw body, keyed by the app secret.
 */
export function metaSign(appSecret: string, body: string) {
  return `sha256=${crypto.createHmac('sha256', appSecret).update(Buffer.from(body, 'utf-8')).digest('hex')}`;
}

export function pageMessageEvent(opts: { pageId: string; psid: string; mid: string; text: string }) {
  return {
    object: 'page',
    entry: [
      {
        id: opts.pageId,
        time: Date.now(),
        messaging: [{ sender: { id: opts.psid }, recipient: { id: opts.pageId }, timestamp: Date.now(), message: { mid: opts.mid, text: opts.text } }],
      },
    ],
  };
}

/**
 * Also answers `GET /v19.0/me` (the token's page, as Graph does for a page access token), with the token as
 * `access_token` or `Authorization: Bearer`, and checks `appsecret_proof` (hex HMAC-SHA256 of the token keyed by
 * the app secret) when one is sent, as Graph does.
 */
export async function startMetaStandIn(opts: { pageAccessToken: string; pageId?: string; pageName?: string; appSecret?: string; port?: number }) {
  const sent: { recipient: string; text: string; messageId: string; messagingType: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && url.pathname === '/v19.0/me') {
        const token = url.searchParams.get('access_token') ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (token !== opts.pageAccessToken) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } }));
        }
        const proof = url.searchParams.get('appsecret_proof');
        if (proof !== null && proof !== crypto.createHmac('sha256', opts.appSecret ?? '').update(token).digest('hex')) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ error: { message: 'Invalid appsecret_proof provided in the API argument', type: 'GraphMethodException', code: 100 } }));
        }
        const fields = (url.searchParams.get('fields') ?? 'id,name').split(',');
        const page: Record<string, string> = { id: opts.pageId ?? '1', name: opts.pageName ?? 'Stand-in page' };
        return res.end(JSON.stringify(Object.fromEntries(fields.filter((f) => f in page).map((f) => [f, page[f]]))));
      }
      if (req.method !== 'POST' || url.pathname !== '/v19.0/me/messages') {
        res.statusCode = 404;
        return res.end(JSON.stringify({ error: { message: 'Unknown path components', type: 'OAuthException', code: 2500 } }));
      }
      if (url.searchParams.get('access_token') !== opts.pageAccessToken) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } }));
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { recipient?: { id?: string }; message?: { text?: string }; messaging_type?: string };
      if (!body.recipient?.id || !body.message?.text) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ error: { message: '(#100) The parameter recipient is required', type: 'OAuthException', code: 100 } }));
      }
      const messageId = `m_${crypto.randomBytes(12).toString('base64url')}`;
      sent.push({ recipient: body.recipient.id, text: body.message.text, messageId, messagingType: body.messaging_type ?? '' });
      res.end(JSON.stringify({ recipient_id: body.recipient.id, message_id: messageId }));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { baseUrl: `http://127.0.0.1:${port}`, sent, close: () => new Promise<void>((r) => server.close(() => r())) };
}
