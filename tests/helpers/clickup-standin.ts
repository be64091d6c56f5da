import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for ClickUp: OAuth 2.0 (GET /api on app.clickup.com, POST /api/v2/oauth/token with client_id,
 * client_secret and code as query parameters, answering { access_token }), and the API v2 calls Parley makes with
 * ClickUp's { err, ECODE } errors: GET /user, GET /team, POST /list/{id}/task, GET /task/{id},
 * POST /team/{id}/webhook (answering the webhook with its secret), DELETE /webhook/{id}. `setStatus` moves a task
 * and posts taskStatusUpdated to the team's webhooks, signed X-Signature.
 */
export async function startClickupStandIn(opts: { clientId: string; clientSecret: string; port?: number }) {
  const codes = new Map<string, string>();
  const tokens = new Set<string>();
  const lists = new Map<string, string>([['901100', '9011'], ['901101', '9011']]);
  const spaces = [
    { id: '790001', name: 'Support', folders: [{ id: '456001', name: 'Escalations', lists: [{ id: '901100', name: 'Bugs from customers' }] }], lists: [{ id: '901101', name: 'Feature requests' }] },
    { id: '790002', name: 'Engineering', folders: [], lists: [] },
  ];
  const tasks: { id: string; name: string; description: string; listId: string; teamId: string; status: string; type: string; assignees: number[] }[] = [];
  const hooks: { id: string; teamId: string; endpoint: string; secret: string; events: string[] }[] = [];
  const deletedHooks: string[] = [];

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const err = (res: http.ServerResponse, status: number, message: string, code: string) => json(res, status, { err: message, ECODE: code });
  const taskJson = (t: (typeof tasks)[number]) => ({
    id: t.id,
    name: t.name,
    description: t.description,
    status: { status: t.status, type: t.type, color: '#d3d3d3', orderindex: 0 },
    url: `https://app.clickup.com/t/${t.id}`,
    team_id: t.teamId,
    list: { id: t.listId },
    assignees: t.assignees.map((id) => ({ id })),
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && url.pathname === '/api') {
        if (url.searchParams.get('client_id') !== opts.clientId) return err(res, 400, 'Client not found', 'OAUTH_001');
        const code = crypto.randomBytes(10).toString('hex');
        codes.set(code, url.searchParams.get('redirect_uri') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      const path = url.pathname.replace(/^\/api\/v2/, '');
      if (req.method === 'POST' && path === '/oauth/token') {
        const q = url.searchParams;
        if (q.get('client_id') !== opts.clientId || q.get('client_secret') !== opts.clientSecret) return err(res, 401, 'Client secret invalid', 'OAUTH_010');
        if (!codes.delete(q.get('code') ?? '')) return err(res, 401, 'Code invalid', 'OAUTH_014');
        const token = `${crypto.randomInt(1e6, 1e7)}_${crypto.randomBytes(20).toString('hex')}`;
        tokens.add(token);
        return json(res, 200, { access_token: token });
      }
      const bearer = /^Bearer (.+)$/.exec((req.headers.authorization as string | undefined) ?? '')?.[1];
      if (!bearer || !tokens.has(bearer)) return err(res, 401, 'Token invalid', 'OAUTH_025');
      if (req.method === 'GET' && path === '/user') return json(res, 200, { user: { id: 183, username: 'Cleo Clicker', email: 'cleo@acme.test', color: '#7b68ee' } });
      if (req.method === 'GET' && path === '/team') return json(res, 200, { teams: [{ id: '9011', name: 'Acme Workspace', members: [] }] });
      // Spaces of a Workspace, and a Space's folders (with their lists) and folderless lists.
      const sm = /^\/team\/([^/]+)\/space$/.exec(path);
      if (req.method === 'GET' && sm) {
        if (sm[1] !== '9011') return err(res, 401, 'Team not authorized', 'OAUTH_027');
        return json(res, 200, { spaces: spaces.map((x) => ({ id: x.id, name: x.name, private: false, statuses: [], multiple_assignees: false, features: {} })) });
      }
      const fm = /^\/space\/([^/]+)\/(folder|list)$/.exec(path);
      if (req.method === 'GET' && fm) {
        const space = spaces.find((x) => x.id === fm[1]);
        if (!space) return err(res, 404, 'Space not found', 'SPAC_011');
        const listJson = (l: { id: string; name: string }) => ({ id: l.id, name: l.name, orderindex: 0, content: '', status: null, space: { id: space.id, name: space.name, access: true } });
        if (fm[2] === 'folder') return json(res, 200, { folders: space.folders.map((f) => ({ id: f.id, name: f.name, hidden: false, space: { id: space.id, name: space.name }, lists: f.lists.map(listJson) })) });
        return json(res, 200, { lists: space.lists.map(listJson) });
      }
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const lm = /^\/list\/(\d+)\/task$/.exec(path);
      if (req.method === 'POST' && lm) {
        const teamId = lists.get(lm[1]);
        if (!teamId) return err(res, 404, 'List not found', 'ITEM_013');
        if (typeof body.name !== 'string' || !body.name) return err(res, 400, 'Task name invalid', 'INPUT_005');
        const t = { id: crypto.randomBytes(4).toString('hex').replace(/^\d/, 'a'), name: body.name, description: String(body.description ?? ''), listId: lm[1], teamId, status: 'to do', type: 'open', assignees: (body.assignees as number[] | undefined) ?? [] };
        tasks.push(t);
        return json(res, 200, taskJson(t));
      }
      const tm = /^\/task\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && tm) {
        const t = tasks.find((x) => x.id === tm[1]);
        return t ? json(res, 200, taskJson(t)) : err(res, 401, 'Team not authorized', 'OAUTH_027');
      }
      const wm = /^\/team\/([^/]+)\/webhook$/.exec(path);
      if (req.method === 'POST' && wm) {
        const h = { id: crypto.randomUUID(), teamId: wm[1], endpoint: String(body.endpoint ?? ''), secret: crypto.randomBytes(24).toString('hex').toUpperCase(), events: (body.events as string[]) ?? [] };
        hooks.push(h);
        return json(res, 200, { id: h.id, webhook: { id: h.id, userid: 183, team_id: Number(h.teamId), endpoint: h.endpoint, client_id: opts.clientId, events: h.events, task_id: null, list_id: null, folder_id: null, space_id: null, health: { status: 'active', fail_count: 0 }, secret: h.secret } });
      }
      const dm = /^\/webhook\/([^/]+)$/.exec(path);
      if (req.method === 'DELETE' && dm) {
        const i = hooks.findIndex((h) => h.id === dm[1]);
        if (i < 0) return err(res, 404, 'Webhook not found', 'WH_004');
        deletedHooks.push(hooks[i].id);
        hooks.splice(i, 1);
        return json(res, 200, {});
      }
      err(res, 404, 'Route not found', 'APP_001');
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    base: `http://127.0.0.1:${port}`,
    apiBase: `http://127.0.0.1:${port}/api/v2`,
    tasks,
    hooks,
    deletedHooks,
    tokens,
    /** Moves the task to a status (type open, custom, done or closed) and tells the team's webhooks; `secret` forges. */
    async setStatus(id: string, status: string, type: string, opt: { secret?: string; rewrite?: (url: string) => string } = {}) {
      const t = tasks.find((x) => x.id === id);
      if (!t) throw new Error('no such task');
      const before = { status: t.status, type: t.type, color: '#d3d3d3', orderindex: 0 };
      Object.assign(t, { status, type });
      const out: number[] = [];
      for (const h of hooks.filter((x) => x.teamId === t.teamId)) {
        const body = JSON.stringify({
          event: 'taskStatusUpdated',
          history_items: [{ id: crypto.randomUUID(), type: 1, date: String(Date.now()), field: 'status', parent_id: t.listId, data: { status_type: type }, source: null, user: { id: 184, username: 'Max Maintainer', email: 'max@acme.test' }, before, after: { status, type, color: '#6bc950', orderindex: 1 } }],
          task_id: t.id,
          webhook_id: h.id,
        });
        const res = await fetch(opt.rewrite ? opt.rewrite(h.endpoint) : h.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': crypto.createHmac('sha256', opt.secret ?? h.secret).update(body).digest('hex') }, body });
        out.push(res.status);
      }
      return out;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
