import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for Asana: OAuth 2.0 (/-/oauth_authorize, /-/oauth_token with authorization_code and refresh_token
 * grants answering { access_token, expires_in, refresh_token, data }, /-/oauth_revoke), and the API 1.0 calls Parley
 * makes, every body wrapped in { data } and errors as { errors: [{ message }] }: GET /users/me, POST /tasks,
 * GET /tasks/{gid}, POST /webhooks. Creating a webhook does Asana's handshake while the request is in flight: a POST
 * to the target with X-Hook-Secret, which must come back in the answer. `completeTask` marks a task completed and
 * posts the compact event batch to its webhooks, signed X-Hook-Signature.
 */
export async function startAsanaStandIn(opts: { clientId: string; clientSecret: string; port?: number; rewriteTarget?: (url: string) => string }) {
  const codes = new Map<string, string>();
  const tokens = new Map<string, number>();
  const refreshTokens = new Set<string>();
  const tasks: { gid: string; name: string; notes: string; completed: boolean; assignee: string | null; projects: string[]; workspace: string | null; dueOn?: string | null }[] = [];
  const hooks: { gid: string; resource: string; target: string; secret: string }[] = [];
  let revoked = 0;
  let refreshed = 0;
  let nextGid = 1_200_000_000_000_000;
  const workspaces = [{ gid: '1100000000000001', name: 'Acme', resource_type: 'workspace' }];
  const projects = [
    { gid: '1300000000000001', name: 'Customer escalations', workspace: '1100000000000001' },
    { gid: '1300000000000002', name: 'Bugs', workspace: '1100000000000001' },
  ];

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const err = (res: http.ServerResponse, status: number, message: string) => json(res, status, { errors: [{ message, help: 'For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors' }] });
  const tokenAnswer = (withRefresh: boolean) => {
    const access = `asana_at_${crypto.randomBytes(16).toString('hex')}`;
    tokens.set(access, Date.now() + 3600_000);
    const out: Record<string, unknown> = { access_token: access, token_type: 'bearer', expires_in: 3600, data: { id: 4200, gid: '4200', name: 'Asa Agent', email: 'asa@acme.test' } };
    if (withRefresh) {
      const refresh = `asana_rt_${crypto.randomBytes(16).toString('hex')}`;
      refreshTokens.add(refresh);
      out.refresh_token = refresh;
    }
    return out;
  };
  const taskJson = (t: (typeof tasks)[number]) => ({ gid: t.gid, resource_type: 'task', name: t.name, completed: t.completed, permalink_url: `https://app.asana.com/0/${t.projects[0] ?? '0'}/${t.gid}`, assignee: t.assignee ? { gid: '4200', name: t.assignee } : null });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && url.pathname === '/-/oauth_authorize') {
        if (url.searchParams.get('client_id') !== opts.clientId || url.searchParams.get('response_type') !== 'code') return err(res, 400, 'invalid_request');
        const code = crypto.randomBytes(10).toString('hex');
        codes.set(code, url.searchParams.get('redirect_uri') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/-/oauth_token') {
        const p = new URLSearchParams(raw);
        if (p.get('client_id') !== opts.clientId || p.get('client_secret') !== opts.clientSecret) return json(res, 401, { error: 'invalid_client', error_description: 'The client credentials are invalid.' });
        if (p.get('grant_type') === 'refresh_token') {
          if (!refreshTokens.has(p.get('refresh_token') ?? '')) return json(res, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid.' });
          refreshed++;
          return json(res, 200, tokenAnswer(false));
        }
        const redirect = codes.get(p.get('code') ?? '');
        if (p.get('grant_type') !== 'authorization_code' || redirect === undefined || p.get('redirect_uri') !== redirect) return json(res, 400, { error: 'invalid_grant', error_description: 'The code is invalid.' });
        codes.delete(p.get('code')!);
        return json(res, 200, tokenAnswer(true));
      }
      if (req.method === 'POST' && url.pathname === '/-/oauth_revoke') {
        const p = new URLSearchParams(raw);
        if (p.get('client_id') !== opts.clientId || p.get('client_secret') !== opts.clientSecret) return json(res, 401, { error: 'invalid_client' });
        if (refreshTokens.delete(p.get('token') ?? '')) {
          tokens.clear();
          revoked++;
        }
        res.writeHead(200);
        return res.end();
      }
      const bearer = /^Bearer (.+)$/.exec((req.headers.authorization as string | undefined) ?? '')?.[1];
      const exp = bearer ? tokens.get(bearer) : undefined;
      if (exp === undefined || exp < Date.now()) return err(res, 401, 'Not Authorized');
      const path = url.pathname.replace(/^\/api\/1\.0/, '');
      if (req.method === 'GET' && path === '/users/me') return json(res, 200, { data: { gid: '4200', name: 'Asa Agent', email: 'asa@acme.test', workspaces } });
      if (req.method === 'GET' && path === '/projects') {
        // GET /projects?workspace=&archived=false&limit=&offset=: one page of the workspace's projects, next_page with an offset.
        const ws = url.searchParams.get('workspace');
        if (!ws || !workspaces.some((w) => w.gid === ws)) return err(res, 400, 'workspace: Not a recognized ID: ' + ws);
        const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const all = projects.filter((p) => p.workspace === ws);
        const data = all.slice(offset, offset + limit).map((p) => ({ gid: p.gid, resource_type: 'project', name: p.name }));
        const next = offset + limit < all.length ? { offset: String(offset + limit), path: `/projects?offset=${offset + limit}`, uri: `https://app.asana.com/api/1.0/projects?offset=${offset + limit}` } : null;
        return json(res, 200, { data, next_page: next });
      }
      const body = raw ? ((JSON.parse(raw) as { data?: Record<string, unknown> }).data ?? {}) : {};
      if (req.method === 'POST' && path === '/tasks') {
        const projects = (body.projects as string[] | undefined) ?? [];
        const workspace = (body.workspace as string | undefined) ?? null;
        if (!projects.length && !workspace) return err(res, 400, 'workspace: Missing input');
        if (workspace && !workspaces.some((w) => w.gid === workspace)) return err(res, 404, 'workspace: Not a recognized ID: ' + workspace);
        if (typeof body.name !== 'string' || !body.name) return err(res, 400, 'name: Missing input');
        const t = { gid: String(nextGid++), name: body.name, notes: String(body.notes ?? ''), completed: false, assignee: body.assignee ? String(body.assignee) : null, projects, workspace, dueOn: typeof body.due_on === 'string' ? body.due_on : null };
        tasks.push(t);
        return json(res, 201, { data: taskJson(t) });
      }
      const tm = /^\/tasks\/(\d+)$/.exec(path);
      if (req.method === 'GET' && tm) {
        const t = tasks.find((x) => x.gid === tm[1]);
        return t ? json(res, 200, { data: taskJson(t) }) : err(res, 404, 'task: Unknown object: ' + tm[1]);
      }
      if (req.method === 'POST' && path === '/webhooks') {
        const resource = String(body.resource ?? '');
        const target = String(body.target ?? '');
        if (!tasks.some((t) => t.gid === resource)) return err(res, 400, 'resource: Unknown object');
        const secret = crypto.randomBytes(32).toString('hex');
        // The handshake, while this request waits.
        let ok = false;
        try {
          const hs = await fetch(opts.rewriteTarget ? opts.rewriteTarget(target) : target, { method: 'POST', headers: { 'x-hook-secret': secret } });
          ok = (hs.status === 200 || hs.status === 204) && hs.headers.get('x-hook-secret') === secret;
        } catch {
          ok = false;
        }
        if (!ok) return err(res, 400, 'The remote server did not respond with the handshake secret.');
        const h = { gid: String(nextGid++), resource, target, secret };
        hooks.push(h);
        return json(res, 201, { data: { gid: h.gid, resource_type: 'webhook', resource: { gid: resource, resource_type: 'task' }, target, active: true } });
      }
      err(res, 404, 'Not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  async function deliver(gid: string, events: unknown[], secretOverride?: string) {
    const body = JSON.stringify({ events });
    const out: number[] = [];
    for (const h of hooks.filter((x) => x.resource === gid)) {
      const res = await fetch(opts.rewriteTarget ? opts.rewriteTarget(h.target) : h.target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hook-signature': crypto.createHmac('sha256', secretOverride ?? h.secret).update(body).digest('hex') },
        body,
      });
      out.push(res.status);
    }
    return out;
  }

  return {
    projects,
    base: `http://127.0.0.1:${port}`,
    apiBase: `http://127.0.0.1:${port}/api/1.0`,
    tasks,
    hooks,
    tokens,
    revokedCount: () => revoked,
    refreshedCount: () => refreshed,
    expireTokens() {
      for (const k of tokens.keys()) tokens.set(k, Date.now() - 1);
    },
    /** A handshake as a stranger would send it, to a target of Parley's choosing. */
    handshake: (target: string) => fetch(target, { method: 'POST', headers: { 'x-hook-secret': crypto.randomBytes(32).toString('hex') } }),
    /** Completes (or, with false, reopens) the task and posts the compact `changed completed` event; `secret` forges it. */
    async setCompleted(gid: string, completed = true, secret?: string) {
      const t = tasks.find((x) => x.gid === gid);
      if (!t) throw new Error('no such task');
      t.completed = completed;
      return deliver(gid, [{ user: { gid: '4300', resource_type: 'user' }, created_at: new Date().toISOString(), action: 'changed', resource: { gid, resource_type: 'task', resource_subtype: 'default_task' }, parent: null, change: { field: 'completed', action: 'changed' } }], secret);
    },
    heartbeat: (gid: string) => deliver(gid, []),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
