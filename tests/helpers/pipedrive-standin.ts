import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for Pipedrive: OAuth (/oauth/authorize → redirect with code and state; POST /oauth/token and
 * /oauth/revoke with the client as HTTP Basic, answering api_domain) and the API v1 calls Parley makes with a Bearer
 * token, each answering { success, data }: users/me, users, persons/search, persons, organizations/search,
 * organizations, persons/{id}/deals, pipelines, stages, deals, activities; API v2 persons (read, create, PATCH
 * with first_name, last_name, emails[], phones[], update_time); webhooks (POST/DELETE /api/v1/webhooks with
 * http_auth_user/password), and `changePerson`, an edit in Pipedrive's UI delivered as a webhooks v2 `change`
 * with the registered HTTP Basic credentials.
 */
export async function startPipedriveStandIn(opts: { clientId: string; clientSecret: string; port?: number }) {
  const codes = new Set<string>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  type Person = { id: number; name: string; email: string; org_id: number | null; first_name: string; last_name: string; phones: { value: string; primary: boolean; label: string }[]; update_time: string };
  const persons: Person[] = [];
  const webhooks: { id: number; subscription_url: string; event_action: string; event_object: string; http_auth_user: string; http_auth_password: string; version: string }[] = [];
  let patches = 0;
  const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const v2Person = (x: Person) => ({ id: x.id, name: x.name, first_name: x.first_name, last_name: x.last_name, emails: [{ value: x.email, primary: true, label: 'work' }], phones: x.phones, org_id: x.org_id, update_time: x.update_time });
  const newPerson = (b: { name: string; email: string; org_id?: number | null; first_name?: string; last_name?: string; phones?: Person['phones'] }): Person => {
    const [first, ...rest] = b.name.split(' ');
    const x = { id: ++nextId, name: b.name, email: b.email, org_id: b.org_id ?? null, first_name: b.first_name ?? first, last_name: b.last_name ?? rest.join(' '), phones: b.phones ?? [], update_time: stamp() };
    persons.push(x);
    return x;
  };
  const orgs: { id: number; name: string }[] = [];
  const deals: Record<string, unknown>[] = [];
  const activities: Record<string, unknown>[] = [];
  let nextId = 300;
  let revoked = 0;
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const ok = (res: http.ServerResponse, data: unknown, status = 200) => json(res, status, { success: true, data });
  const pipelines = [{ id: 1, name: 'Sales' }];
  const stages = [
    { id: 1, name: 'Lead In', pipeline_id: 1 },
    { id: 2, name: 'Contact Made', pipeline_id: 1 },
  ];
  const users = [{ id: 11, name: 'Pia Planner', active_flag: true }];
  let base = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      const p = url.pathname;
      if (req.method === 'GET' && p === '/oauth/authorize') {
        const code = crypto.randomBytes(10).toString('hex');
        codes.add(code);
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && (p === '/oauth/token' || p === '/oauth/revoke')) {
        if (req.headers.authorization !== `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`) return json(res, 401, { success: false, message: 'Invalid client credentials', error: 'unauthorized' });
        const f = new URLSearchParams(raw);
        if (p === '/oauth/revoke') {
          refresh.delete(f.get('token') ?? '');
          revoked++;
          return json(res, 200, {});
        }
        if (f.get('grant_type') === 'authorization_code' && !codes.delete(f.get('code') ?? '')) return json(res, 400, { success: false, message: 'Invalid grant: authorization code is invalid', error: 'invalid_grant' });
        if (f.get('grant_type') === 'refresh_token' && !refresh.has(f.get('refresh_token') ?? '')) return json(res, 400, { success: false, message: 'Invalid grant', error: 'invalid_grant' });
        const a = `pd-at-${crypto.randomBytes(10).toString('hex')}`;
        const r = f.get('refresh_token') ?? `pd-rt-${crypto.randomBytes(10).toString('hex')}`;
        access.add(a);
        refresh.add(r);
        return json(res, 200, { access_token: a, token_type: 'Bearer', refresh_token: r, scope: 'base,deals:full,contacts:full,activities:full', expires_in: 3599, api_domain: base });
      }
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      if (!token || !access.has(token)) return json(res, 401, { success: false, error: 'unauthorized access', errorCode: 401 });
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const v2 = /^\/api\/v2\/persons(?:\/(\d+))?$/.exec(p);
      if (v2) {
        if (req.method === 'POST' && !v2[1]) {
          const emails = (body.emails as { value: string }[] | undefined) ?? [];
          if (!body.name) return json(res, 400, { success: false, error: 'name is required', errorCode: 400 });
          return ok(res, v2Person(newPerson({ name: String(body.name), email: emails[0]?.value ?? '', first_name: body.first_name as string | undefined, last_name: body.last_name as string | undefined, phones: body.phones as Person['phones'] | undefined })));
        }
        const x = persons.find((y) => y.id === Number(v2[1]));
        if (!x) return json(res, 404, { success: false, error: 'Person not found', errorCode: 404 });
        if (req.method === 'GET') return ok(res, v2Person(x));
        if (req.method === 'PATCH') {
          patches++;
          if (typeof body.first_name === 'string') x.first_name = body.first_name;
          if (typeof body.last_name === 'string') x.last_name = body.last_name;
          if (Array.isArray(body.phones)) x.phones = body.phones as Person['phones'];
          x.name = `${x.first_name} ${x.last_name}`.trim();
          x.update_time = stamp();
          return ok(res, v2Person(x));
        }
      }
      const v1 = p.replace(/^\/api\/v1/, '');
      if (req.method === 'POST' && v1 === '/webhooks') {
        for (const k of ['subscription_url', 'event_action', 'event_object'] as const) if (!body[k]) return json(res, 400, { success: false, error: `${k} is required`, errorCode: 400 });
        const w = { id: ++nextId, subscription_url: String(body.subscription_url), event_action: String(body.event_action), event_object: String(body.event_object), http_auth_user: String(body.http_auth_user ?? ''), http_auth_password: String(body.http_auth_password ?? ''), version: String(body.version ?? '1.0') };
        webhooks.push(w);
        return ok(res, { ...w, http_auth_password: undefined }, 201);
      }
      const wh = /^\/webhooks\/(\d+)$/.exec(v1);
      if (req.method === 'DELETE' && wh) {
        const i = webhooks.findIndex((w) => w.id === Number(wh[1]));
        if (i < 0) return json(res, 404, { success: false, error: 'Webhook not found', errorCode: 404 });
        webhooks.splice(i, 1);
        return ok(res, { id: Number(wh[1]) });
      }
      if (v1 === '/users/me') return ok(res, { id: 11, name: 'Pia Planner', company_id: 777, company_name: 'Parley Test Co', company_domain: 'parleytest' });
      if (v1 === '/users') return ok(res, users);
      if (v1 === '/pipelines') return ok(res, pipelines);
      if (v1 === '/stages') return ok(res, stages);
      if (req.method === 'GET' && v1 === '/persons/search') {
        const term = (url.searchParams.get('term') ?? '').toLowerCase();
        const items = persons.filter((x) => x.email.toLowerCase() === term).map((x) => ({ result_score: 1, item: { id: x.id, type: 'person', name: x.name, emails: [x.email], organization: x.org_id ? { id: x.org_id, name: orgs.find((o) => o.id === x.org_id)?.name } : null } }));
        return ok(res, { items });
      }
      if (req.method === 'GET' && v1 === '/organizations/search') {
        const term = (url.searchParams.get('term') ?? '').toLowerCase();
        return ok(res, { items: orgs.filter((o) => o.name.toLowerCase() === term).map((o) => ({ result_score: 1, item: { id: o.id, type: 'organization', name: o.name } })) });
      }
      if (req.method === 'POST' && v1 === '/organizations') {
        const o = { id: ++nextId, name: String(body.name) };
        orgs.push(o);
        return ok(res, o, 201);
      }
      if (req.method === 'POST' && v1 === '/persons') {
        const email = (body.email as { value: string }[] | undefined)?.[0]?.value ?? '';
        const x = newPerson({ name: String(body.name), email, org_id: (body.org_id as number) ?? null });
        return ok(res, x, 201);
      }
      const pd = /^\/persons\/(\d+)\/deals$/.exec(v1);
      if (req.method === 'GET' && pd) {
        const list = deals.filter((d) => d.person_id === Number(pd[1])).map((d) => ({ ...d, person_id: { value: d.person_id, name: '' }, user_id: d.user_id ? { id: d.user_id, name: users.find((u) => u.id === d.user_id)?.name } : null, org_id: d.org_id ? { value: d.org_id, name: '' } : null }));
        return ok(res, list.length ? list : null);
      }
      if (req.method === 'POST' && v1 === '/deals') {
        if (!body.title) return json(res, 400, { success: false, error: 'Title is required', errorCode: 400 });
        const d = { id: ++nextId, currency: 'EUR', status: 'open', value: Number(body.value ?? 0), ...body };
        deals.push(d);
        return ok(res, d, 201);
      }
      if (req.method === 'POST' && v1 === '/activities') {
        const a = { id: ++nextId, ...body };
        activities.push(a);
        return ok(res, a, 201);
      }
      json(res, 404, { success: false, error: 'Unknown method .', errorCode: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  /** An edit in Pipedrive's UI: the person changes, and each `change` person webhook gets a v2 delivery (to `port`, the app on loopback). */
  async function changePerson(id: number, fields: Partial<Pick<Person, 'first_name' | 'last_name'>> & { phone?: string }, o: { port: number; password?: string; timestamp?: string }) {
    const x = persons.find((y) => y.id === id)!;
    const previous: Record<string, unknown> = {};
    if (fields.first_name !== undefined) (previous.first_name = x.first_name), (x.first_name = fields.first_name);
    if (fields.last_name !== undefined) (previous.last_name = x.last_name), (x.last_name = fields.last_name);
    if (fields.phone !== undefined) (previous.phones = x.phones), (x.phones = [{ value: fields.phone, primary: true, label: 'work' }]);
    x.name = `${x.first_name} ${x.last_name}`.trim();
    x.update_time = o.timestamp ?? stamp();
    const out: { status: number; text: string }[] = [];
    for (const w of webhooks.filter((h) => h.event_object === 'person' && (h.event_action === 'change' || h.event_action === '*'))) {
      const body = JSON.stringify({
        data: v2Person(x),
        previous,
        meta: { action: 'change', entity: 'person', entity_id: String(x.id), company_id: '777', correlation_id: crypto.randomUUID(), id: crypto.randomUUID(), is_bulk_edit: false, timestamp: x.update_time, type: 'general', user_id: '11', version: '2.0', webhook_id: String(w.id), webhook_owner_id: '11', change_source: 'app', attempt: 1 },
      });
      const target = new URL(w.subscription_url);
      out.push(await post({ port: o.port, path: target.pathname, body, authorization: `Basic ${Buffer.from(`${w.http_auth_user}:${o.password ?? w.http_auth_password}`).toString('base64')}` }));
    }
    return out;
  }
  return { base, persons, orgs, deals, activities, webhooks, patchCount: () => patches, changePerson, revokedCount: () => revoked, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A POST to the app on loopback (webhook deliveries of the stand-ins). */
export function post(o: { port: number; path: string; body: string; host?: string; authorization?: string; headers?: Record<string, string> }) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(o.body)), ...o.headers };
    if (o.host) headers.host = o.host;
    if (o.authorization) headers.authorization = o.authorization;
    const req = http.request({ host: '127.0.0.1', port: o.port, path: o.path, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}
