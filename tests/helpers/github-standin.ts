import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for GitHub: the OAuth web application flow (/login/oauth/authorize, /login/oauth/access_token answering
 * errors with 200 and { error }, optional expiring user tokens with refresh), DELETE /applications/{id}/grant, and
 * the REST calls Parley makes (GET /user, issues create and get, repository hooks), with GitHub's { message } errors.
 * `closeIssue` closes an issue and delivers the `issues` webhook to the repository's hooks, signed
 * X-Hub-Signature-256 with each hook's secret.
 */
export async function startGithubStandIn(opts: { clientId: string; clientSecret: string; login?: string; expiringTokens?: boolean; port?: number }) {
  const login = opts.login ?? 'octo-agent';
  const codes = new Map<string, string>();
  const tokens = new Map<string, number>();
  const refreshTokens = new Set<string>();
  const issues = new Map<string, { number: number; title: string; body: string; state: 'open' | 'closed'; assignees: string[] }[]>();
  const hooks: { repo: string; url: string; secret: string; events: string[] }[] = [];
  const requests: { method: string; path: string; auth: string | null }[] = [];
  let revoked = 0;
  let refreshed = 0;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const issue = () => {
    const access = `gho_${crypto.randomBytes(16).toString('hex')}`;
    tokens.set(access, opts.expiringTokens ? Date.now() + 8 * 3600_000 : Infinity);
    const out: Record<string, unknown> = { access_token: access, token_type: 'bearer', scope: 'repo,admin:repo_hook' };
    if (opts.expiringTokens) {
      const refresh = `ghr_${crypto.randomBytes(16).toString('hex')}`;
      refreshTokens.add(refresh);
      Object.assign(out, { expires_in: 28800, refresh_token: refresh, refresh_token_expires_in: 15_811_200 });
    }
    return out;
  };
  const issueJson = (repo: string, i: { number: number; title: string; body: string; state: string; assignees: string[] }) => ({
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    html_url: `https://github.com/${repo}/issues/${i.number}`,
    assignees: i.assignees.map((a) => ({ login: a })),
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      const auth = (req.headers.authorization as string | undefined) ?? null;
      requests.push({ method: req.method ?? '', path: url.pathname, auth });
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        if (url.searchParams.get('client_id') !== opts.clientId) return json(res, 404, { message: 'Not Found' });
        const code = crypto.randomBytes(10).toString('hex');
        codes.set(code, url.searchParams.get('redirect_uri') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const p = new URLSearchParams(raw);
        if (p.get('client_id') !== opts.clientId || p.get('client_secret') !== opts.clientSecret) return json(res, 200, { error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' });
        if (p.get('grant_type') === 'refresh_token') {
          if (!refreshTokens.delete(p.get('refresh_token') ?? '')) return json(res, 200, { error: 'bad_refresh_token', error_description: 'The refresh token passed is incorrect or expired.' });
          refreshed++;
          return json(res, 200, issue());
        }
        const redirect = codes.get(p.get('code') ?? '');
        if (redirect === undefined || (p.get('redirect_uri') && p.get('redirect_uri') !== redirect)) return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        codes.delete(p.get('code')!);
        return json(res, 200, issue());
      }
      const grant = /^\/applications\/([^/]+)\/grant$/.exec(url.pathname);
      if (req.method === 'DELETE' && grant) {
        if (auth !== `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`) return json(res, 401, { message: 'Requires authentication' });
        const t = (JSON.parse(raw || '{}') as { access_token?: string }).access_token ?? '';
        if (!tokens.delete(t)) return json(res, 422, { message: 'Validation Failed' });
        revoked++;
        res.writeHead(204);
        return res.end();
      }
      const bearer = /^Bearer (.+)$/.exec(auth ?? '')?.[1];
      const exp = bearer ? tokens.get(bearer) : undefined;
      if (exp === undefined || exp < Date.now()) return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      if (req.method === 'GET' && url.pathname === '/user') return json(res, 200, { login, id: 1, type: 'User' });
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const im = /^\/repos\/([^/]+\/[^/]+)\/issues(?:\/(\d+))?$/.exec(url.pathname);
      if (im) {
        const repo = im[1];
        const list = issues.get(repo) ?? [];
        issues.set(repo, list);
        if (req.method === 'POST' && !im[2]) {
          if (typeof body.title !== 'string' || !body.title) return json(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }] });
          const i = { number: list.length + 1, title: body.title, body: String(body.body ?? ''), state: 'open' as const, assignees: (body.assignees as string[] | undefined) ?? [] };
          list.push(i);
          return json(res, 201, issueJson(repo, i));
        }
        const i = list.find((x) => x.number === Number(im[2]));
        if (req.method === 'GET' && i) return json(res, 200, issueJson(repo, i));
        return json(res, 404, { message: 'Not Found' });
      }
      const hm = /^\/repos\/([^/]+\/[^/]+)\/hooks$/.exec(url.pathname);
      if (hm && req.method === 'POST') {
        const cfg = body.config as { url: string; secret: string };
        if (hooks.some((h) => h.repo === hm[1] && h.url === cfg.url)) return json(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Hook', code: 'custom', message: 'Hook already exists on this repository' }] });
        hooks.push({ repo: hm[1], url: cfg.url, secret: cfg.secret, events: (body.events as string[]) ?? [] });
        return json(res, 201, { id: hooks.length, name: 'web', active: true, events: body.events, config: { url: cfg.url, content_type: 'json' } });
      }
      json(res, 404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  async function deliver(repo: string, payload: unknown, secretOverride?: string) {
    const body = JSON.stringify(payload);
    const out: number[] = [];
    for (const h of hooks.filter((x) => x.repo === repo)) {
      const res = await fetch(h.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': crypto.randomUUID(),
          'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', secretOverride ?? h.secret).update(body).digest('hex')}`,
        },
        body,
      });
      out.push(res.status);
    }
    return out;
  }

  return {
    base: `http://127.0.0.1:${port}`,
    issues,
    hooks,
    requests,
    tokens,
    revokedCount: () => revoked,
    refreshedCount: () => refreshed,
    /** Makes every access token expire now (the next call must refresh). */
    expireTokens() {
      for (const k of tokens.keys()) tokens.set(k, Date.now() - 1);
    },
    /** Closes the issue and tells the repository's hooks, as GitHub does; `secret` forges the signature. */
    async closeIssue(repo: string, number: number, by = 'maintainer', secret?: string) {
      const i = issues.get(repo)?.find((x) => x.number === number);
      if (!i) throw new Error('no such issue');
      i.state = 'closed';
      return deliver(repo, { action: 'closed', issue: issueJson(repo, i), repository: { full_name: repo }, sender: { login: by } }, secret);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
