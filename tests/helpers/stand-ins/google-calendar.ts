import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for Google's OAuth 2.0 endpoints (accounts.google.com authorize, oauth2.googleapis.com token and
 * revoke) and the Calendar API v3 (freeBusy, events insert and delete), speaking Google's wire format: form-encoded
 * token requests, JSON answers, OAuth errors as { error, error_description }, API errors as
 * { error: { code, message, errors, status } }. The consent page approves at once and redirects back with a code.
 */
export async function startGoogleCalendarStandIn(opts: {
  port?: number;
  clientId: string;
  clientSecret: string;
  email?: string;
  /**
   * The fixed port (E2E_GOOGLE_PORT, which the Parley under test calls) is one for all the browser specs that use
   * Google, and two workers may run two of them at once: with this, a spec whose port is taken waits until the other
   * spec has closed its stand-in (up to this many ms) instead of failing.
   */
  waitForPortMs?: number;
}) {
  const email = opts.email ?? 'host@example.com';
  const codes = new Map<string, { redirectUri: string }>();
  const tokens = new Map<string, { email: string; expiresAt: number }>();
  const refreshTokens = new Set<string>();
  const busy: { start: string; end: string }[] = [];
  const events: Record<string, unknown>[] = [];
  const freeBusyCalls: Record<string, unknown>[] = [];
  let revoked = 0;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const apiError = (res: http.ServerResponse, code: number, message: string, status: string) => json(res, code, { error: { code, message, errors: [{ message, domain: 'global', reason: status.toLowerCase() }], status } });
  const issue = () => {
    const access = `ya29.${crypto.randomBytes(16).toString('hex')}`;
    tokens.set(access, { email, expiresAt: Date.now() + 3600_000 });
    return access;
  };
  const idToken = () => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ email, email_verified: true, iss: 'https://accounts.google.com' })).toString('base64url')}.sig`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
        const redirectUri = url.searchParams.get('redirect_uri') ?? '';
        if (url.searchParams.get('client_id') !== opts.clientId) return json(res, 400, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        if (url.searchParams.get('response_type') !== 'code') return json(res, 400, { error: 'unsupported_response_type' });
        const code = `4/${crypto.randomBytes(12).toString('hex')}`;
        codes.set(code, { redirectUri });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        back.searchParams.set('scope', url.searchParams.get('scope') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const p = new URLSearchParams(body);
        if (p.get('client_id') !== opts.clientId || p.get('client_secret') !== opts.clientSecret) return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
        if (p.get('grant_type') === 'authorization_code') {
          const c = codes.get(p.get('code') ?? '');
          if (!c || c.redirectUri !== p.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
          codes.delete(p.get('code')!);
          const refresh = `1//${crypto.randomBytes(16).toString('hex')}`;
          refreshTokens.add(refresh);
          return json(res, 200, { access_token: issue(), expires_in: 3599, refresh_token: refresh, scope: 'https://www.googleapis.com/auth/calendar.events', token_type: 'Bearer', id_token: idToken() });
        }
        if (p.get('grant_type') === 'refresh_token') {
          if (!refreshTokens.has(p.get('refresh_token') ?? '')) return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
          return json(res, 200, { access_token: issue(), expires_in: 3599, scope: 'https://www.googleapis.com/auth/calendar.events', token_type: 'Bearer' });
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'POST' && url.pathname === '/revoke') {
        const token = new URLSearchParams(body).get('token') ?? '';
        if (!refreshTokens.delete(token) && !tokens.delete(token)) return json(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
        revoked++;
        return json(res, 200, {});
      }
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const token = auth ? tokens.get(auth) : undefined;
      if (url.pathname.startsWith('/calendar/v3/') && (!token || token.expiresAt < Date.now())) return apiError(res, 401, 'Request had invalid authentication credentials.', 'UNAUTHENTICATED');
      if (req.method === 'POST' && url.pathname === '/calendar/v3/freeBusy') {
        const q = JSON.parse(body) as { timeMin: string; timeMax: string; items: { id: string }[] };
        freeBusyCalls.push(q);
        const min = Date.parse(q.timeMin);
        const max = Date.parse(q.timeMax);
        const inRange = busy.filter((b) => Date.parse(b.end) > min && Date.parse(b.start) < max);
        return json(res, 200, { kind: 'calendar#freeBusy', timeMin: q.timeMin, timeMax: q.timeMax, calendars: Object.fromEntries(q.items.map((i) => [i.id, { busy: inRange }])) });
      }
      const ev = /^\/calendar\/v3\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(url.pathname);
      if (ev && req.method === 'POST' && !ev[2]) {
        const e = { kind: 'calendar#event', id: crypto.randomBytes(10).toString('hex'), status: 'confirmed', calendarId: decodeURIComponent(ev[1]), ...JSON.parse(body) };
        events.push(e);
        return json(res, 200, e);
      }
      if (ev && req.method === 'PATCH' && ev[2]) {
        const e = events.find((x) => x.id === ev[2]);
        if (!e) return apiError(res, 404, 'Not Found', 'NOT_FOUND');
        Object.assign(e, JSON.parse(body));
        return json(res, 200, e);
      }
      if (ev && req.method === 'DELETE' && ev[2]) {
        const i = events.findIndex((e) => e.id === ev[2]);
        if (i < 0) return apiError(res, 404, 'Not Found', 'NOT_FOUND');
        events.splice(i, 1);
        res.writeHead(204);
        return res.end();
      }
      apiError(res, 404, 'Not Found', 'NOT_FOUND');
    });
  });
  const deadline = Date.now() + (opts.waitForPortMs ?? 0);
  for (;;) {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', resolve);
        resolve(null);
      });
    });
    if (!error) break;
    if (error.code !== 'EADDRINUSE' || Date.now() > deadline) throw error;
    await new Promise((r) => setTimeout(r, 250));
  }
  const port = (server.address() as { port: number }).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    busy,
    events,
    freeBusyCalls,
    revokedCount: () => revoked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
