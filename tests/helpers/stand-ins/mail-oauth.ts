import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for the OAuth 2.0 endpoints behind Gmail and Microsoft 365 mail (ADR 158), speaking their wire format:
 * Google's authorize (/o/oauth2/v2/auth), token (/token: authorization_code, refresh_token, invalid_grant) and
 * userinfo (/oauth2/v3/userinfo, Bearer), and Microsoft identity platform v2's /{tenant}/oauth2/v2.0/authorize and
 * /token (an id_token with preferred_username, rotated refresh tokens). Form-encoded requests, JSON answers, errors as
 * { error, error_description }. The consent page approves at once and redirects back with a code. `onAccessToken`
 * hears every access token issued, so a local IMAP/SMTP server can accept exactly those.
 */
export async function startMailOAuthStandIn(opts: {
  clientId: string;
  clientSecret: string;
  email: string;
  port?: number;
  onAccessToken?: (token: string) => void;
  /** The browser specs share one fixed Google port (E2E_GOOGLE_PORT): wait this long for another spec to free it. */
  waitForPortMs?: number;
}) {
  const codes = new Map<string, { redirectUri: string; scope: string; provider: 'google' | 'microsoft' }>();
  const refreshTokens = new Set<string>();
  const accessTokens = new Map<string, number>();
  const consentRequests: URLSearchParams[] = [];
  let refreshes = 0;
  let expiresIn = 3599;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const issue = (provider: 'google' | 'microsoft') => {
    const token = provider === 'google' ? `ya29.${crypto.randomBytes(16).toString('hex')}` : `eyJ0eXAi.${crypto.randomBytes(16).toString('hex')}`;
    accessTokens.set(token, Date.now() + expiresIn * 1000);
    opts.onAccessToken?.(token);
    return token;
  };
  const newRefresh = (provider: 'google' | 'microsoft') => {
    const r = provider === 'google' ? `1//${crypto.randomBytes(16).toString('hex')}` : `0.AXo${crypto.randomBytes(16).toString('hex')}`;
    refreshTokens.add(r);
    return r;
  };
  const microsoftIdToken = () =>
    `${Buffer.from('{"typ":"JWT","alg":"RS256"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ preferred_username: opts.email, email: opts.email, iss: 'https://login.microsoftonline.com/tenant/v2.0' }),
    ).toString('base64url')}.sig`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const body = Buffer.concat(chunks).toString('utf8');
      const ms = /^\/([^/]+)\/oauth2\/v2\.0\/(authorize|token)$/.exec(url.pathname);
      const provider = ms ? 'microsoft' : 'google';
      if (req.method === 'GET' && (url.pathname === '/o/oauth2/v2/auth' || ms?.[2] === 'authorize')) {
        consentRequests.push(url.searchParams);
        if (url.searchParams.get('client_id') !== opts.clientId)
          return json(res, 400, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        if (url.searchParams.get('response_type') !== 'code') return json(res, 400, { error: 'unsupported_response_type' });
        const code = provider === 'google' ? `4/${crypto.randomBytes(12).toString('hex')}` : `M.C5${crypto.randomBytes(12).toString('hex')}`;
        codes.set(code, { redirectUri: url.searchParams.get('redirect_uri') ?? '', scope: url.searchParams.get('scope') ?? '', provider });
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        if (provider === 'google') back.searchParams.set('scope', url.searchParams.get('scope') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && (url.pathname === '/token' || ms?.[2] === 'token')) {
        const p = new URLSearchParams(body);
        if (p.get('client_id') !== opts.clientId || p.get('client_secret') !== opts.clientSecret)
          return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
        if (p.get('grant_type') === 'authorization_code') {
          const c = codes.get(p.get('code') ?? '');
          if (!c || c.redirectUri !== p.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
          codes.delete(p.get('code')!);
          const answer: Record<string, unknown> = {
            access_token: issue(c.provider),
            expires_in: expiresIn,
            refresh_token: newRefresh(c.provider),
            scope: c.scope,
            token_type: 'Bearer',
          };
          if (c.provider === 'microsoft') answer.id_token = microsoftIdToken();
          return json(res, 200, answer);
        }
        if (p.get('grant_type') === 'refresh_token') {
          const given = p.get('refresh_token') ?? '';
          if (!refreshTokens.has(given)) return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
          refreshes++;
          const answer: Record<string, unknown> = { access_token: issue(provider), expires_in: expiresIn, token_type: 'Bearer' };
          // Microsoft rotates refresh tokens; Google keeps the one it gave.
          if (provider === 'microsoft') {
            refreshTokens.delete(given);
            answer.refresh_token = newRefresh('microsoft');
          }
          return json(res, 200, answer);
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'GET' && url.pathname === '/oauth2/v3/userinfo') {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
        const exp = accessTokens.get(token);
        if (!exp || exp < Date.now()) return json(res, 401, { error: 'invalid_token', error_description: 'Invalid Credentials' });
        return json(res, 200, { sub: '1093', email: opts.email, email_verified: true });
      }
      json(res, 404, { error: 'not_found' });
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
    consentRequests,
    refreshCount: () => refreshes,
    /** Access tokens issued from now on lapse after this many seconds (Google's are 3599). */
    setExpiresIn: (s: number) => void (expiresIn = s),
    /** Whether a token is one this provider issued and still honours. */
    accepts: (token: string) => (accessTokens.get(token) ?? 0) > Date.now(),
    /** The user removed the app's access: every refresh token answers invalid_grant, access tokens stop working. */
    revokeAll: () => {
      refreshTokens.clear();
      accessTokens.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
