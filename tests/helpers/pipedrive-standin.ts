import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for Pipedrive: OAuth (/oauth/authorize → redirect with code and state; POST /oauth/token and
 * /oauth/revoke with the client as HTTP Basic, answering api_domain) and the API v1 calls Parley makes with a Bearer
 * token, each answering { success, data }: users/me, users, persons/search, persons, organizations/search,
 * organizations, persons/{id}/deals, pipelines, stages, deals, activities.
 */
export async function startPipedriveStandIn(opts: { clientId: string; clientSecret: string; port?: number }) {
  const codes = new Set<string>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const persons: { id: number; name: string; email: string; org_id: number | null }[] = [];
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
      const v1 = p.replace(/^\/api\/v1/, '');
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
        const x = { id: ++nextId, name: String(body.name), email, org_id: (body.org_id as number) ?? null };
        persons.push(x);
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
  return { base, persons, orgs, deals, activities, revokedCount: () => revoked, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
