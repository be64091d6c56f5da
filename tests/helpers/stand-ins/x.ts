import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for X's API v2 DM endpoint (`POST /2/dm_conversations/with/{participant_id}/messages`, Bearer user
 * token, answers { data: { dm_conversation_id, dm_event_id } } or a problem JSON), and the Account Activity signer
 * from X's documentation: "sha256=" + base64 HMAC-SHA256 keyed by the consumer secret (CRC tokens and bodies alike).
 */
export function xSign(consumerSecret: string, payload: string) {
  return `sha256=${crypto.createHmac('sha256', consumerSecret).update(payload).digest('base64')}`;
}

export function dmEvent(opts: { forUserId: string; senderId: string; id: string; text: string; name?: string }) {
  return {
    for_user_id: opts.forUserId,
    direct_message_events: [
      {
        type: 'message_create',
        id: opts.id,
        created_timestamp: String(Date.now()),
        message_create: { target: { recipient_id: opts.forUserId }, sender_id: opts.senderId, message_data: { text: opts.text, entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] } } },
      },
    ],
    users: { [opts.senderId]: { id: opts.senderId, name: opts.name ?? 'X User', screen_name: 'xuser' } },
  };
}

/** Also answers `GET /2/users/me` (the account the user token acts for: { data: { id, name, username } }). */
export async function startXStandIn(opts: { accessToken: string; userId?: string; username?: string; port?: number }) {
  const sent: { participant: string; text: string; eventId: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && new URL(req.url ?? '/', 'http://x').pathname === '/2/users/me') {
        if (req.headers.authorization !== `Bearer ${opts.accessToken}`) {
          res.statusCode = 401;
          return res.end(JSON.stringify({ title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' }));
        }
        return res.end(JSON.stringify({ data: { id: opts.userId ?? '1', name: 'Stand-in', username: opts.username ?? 'standin' } }));
      }
      const m = /^\/2\/dm_conversations\/with\/(\d+)\/messages$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      if (req.method !== 'POST' || !m) {
        res.statusCode = 404;
        return res.end(JSON.stringify({ title: 'Not Found Error', detail: 'Sorry, that page does not exist.', type: 'about:blank', status: 404 }));
      }
      if (req.headers.authorization !== `Bearer ${opts.accessToken}`) {
        res.statusCode = 401;
        return res.end(JSON.stringify({ title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' }));
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text?: string };
      const eventId = String(BigInt(Date.now()) * 1000n + BigInt(sent.length));
      sent.push({ participant: m[1], text: body.text ?? '', eventId });
      res.statusCode = 201;
      res.end(JSON.stringify({ data: { dm_conversation_id: `${m[1]}-1`, dm_event_id: eventId } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { baseUrl: `http://127.0.0.1:${port}`, sent, close: () => new Promise<void>((r) => server.close(() => r())) };
}
