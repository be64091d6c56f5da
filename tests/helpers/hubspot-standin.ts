import crypto from 'node:crypto';
import http from 'node:http';
import { post } from './pipedrive-standin';

/**
 * A stand-in for HubSpot: the OAuth authorization-code grant (/oauth/authorize → redirect with code and state;
 * POST /oauth/v1/token form-encoded for authorization_code and refresh_token; GET /oauth/v1/access-tokens/{t};
 * DELETE /oauth/v1/refresh-tokens/{t}) and the CRM v3/v4 calls Parley makes with a Bearer token: contacts and
 * companies search (filterGroups EQ), create, read; v4 default associations; deals batch read and create with
 * associations; deal pipelines; owners; notes. Errors in HubSpot's shape { status: 'error', message, category }.
 * Also the app's Webhooks API v3 (`/webhooks/v3/{appId}/settings` and `/subscriptions`, with the developer `hapikey`),
 * `lastmodifieddate` on contacts, and `changeContact`: an edit in HubSpot delivered as a `contact.propertyChange`
 * batch signed with X-HubSpot-Signature-v3 to the registered target URL.
 */
type Obj = { id: string; properties: Record<string, string>; createdAt: string; updatedAt: string; archived: boolean };

export async function startHubspotStandIn(opts: { clientId: string; clientSecret: string; port?: number; hubId?: number; expiresIn?: number; appId?: string; developerApiKey?: string }) {
  const hubId = opts.hubId ?? 4242;
  const appId = opts.appId ?? '31337';
  const webhookSettings: { targetUrl: string | null } = { targetUrl: null };
  const subscriptions: { id: number; eventType: string; propertyName?: string; active: boolean; createdAt: string }[] = [];
  let patches = 0;
  const codes = new Map<string, string>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const objects: Record<'contacts' | 'companies' | 'deals' | 'notes', Obj[]> = { contacts: [], companies: [], deals: [], notes: [] };
  const assoc: { from: string; fromId: string; to: string; toId: string; typeId: number }[] = [];
  const pipelines = [
    {
      id: 'default',
      label: 'Sales Pipeline',
      stages: [
        { id: 'appointmentscheduled', label: 'Appointment Scheduled' },
        { id: 'qualifiedtobuy', label: 'Qualified To Buy' },
        { id: 'closedwon', label: 'Closed Won' },
      ],
    },
    { id: '7771', label: 'Renewals', stages: [{ id: '7771-open', label: 'Up for renewal' }] },
  ];
  const owners = [{ id: '501', email: 'olga@example.test', firstName: 'Olga', lastName: 'Owner' }];
  let nextId = 9000;
  let refreshed = 0;
  let revoked = 0;

  const json = (res: http.ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      res.writeHead(status);
      return res.end();
    }
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const err = (res: http.ServerResponse, status: number, message: string, category = 'VALIDATION_ERROR') =>
    json(res, status, { status: 'error', message, correlationId: crypto.randomUUID(), category });
  const issue = () => {
    const a = `hs-at-${crypto.randomBytes(12).toString('hex')}`;
    const r = `hs-rt-${crypto.randomBytes(12).toString('hex')}`;
    access.add(a);
    refresh.add(r);
    return { token_type: 'bearer', access_token: a, refresh_token: r, expires_in: opts.expiresIn ?? 1800 };
  };
  const make = (kind: keyof typeof objects, properties: Record<string, string>) => {
    const now = new Date().toISOString();
    const o: Obj = { id: String(++nextId), properties: { ...properties, hs_object_id: '', lastmodifieddate: now }, createdAt: now, updatedAt: now, archived: false };
    o.properties.hs_object_id = o.id;
    objects[kind].push(o);
    return o;
  };
  const pick = (o: Obj, props: string[] | undefined) => ({
    ...o,
    properties: props ? Object.fromEntries(props.map((p) => [p, o.properties[p] ?? null])) : o.properties,
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      const p = url.pathname;
      if (req.method === 'GET' && p === '/oauth/authorize') {
        if (url.searchParams.get('client_id') !== opts.clientId) return err(res, 400, 'Invalid client id');
        const code = crypto.randomBytes(12).toString('hex');
        codes.set(code, url.searchParams.get('redirect_uri') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && p === '/oauth/v1/token') {
        const f = new URLSearchParams(raw);
        if (f.get('client_id') !== opts.clientId || f.get('client_secret') !== opts.clientSecret)
          return json(res, 400, { status: 'BAD_CLIENT_ID', message: 'missing or unknown client id' });
        if (f.get('grant_type') === 'authorization_code') {
          const code = f.get('code') ?? '';
          if (codes.get(code) !== f.get('redirect_uri')) return json(res, 400, { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code' });
          codes.delete(code);
          return json(res, 200, issue());
        }
        if (f.get('grant_type') === 'refresh_token') {
          if (!refresh.has(f.get('refresh_token') ?? '')) return json(res, 400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token' });
          refreshed++;
          const t = issue();
          refresh.delete(t.refresh_token);
          return json(res, 200, { ...t, refresh_token: f.get('refresh_token') });
        }
        return json(res, 400, { status: 'BAD_GRANT_TYPE', message: 'unknown grant type' });
      }
      const at = /^\/oauth\/v1\/access-tokens\/(.+)$/.exec(p);
      if (req.method === 'GET' && at) {
        if (!access.has(decodeURIComponent(at[1]))) return err(res, 404, 'Token not found', 'OBJECT_NOT_FOUND');
        return json(res, 200, {
          token: at[1],
          user: 'agent@example.test',
          hub_domain: 'parley-test.hubspot.com',
          scopes: ['oauth'],
          hub_id: hubId,
          app_id: 1,
          expires_in: 1500,
          user_id: 1,
          token_type: 'access',
        });
      }
      const rt = /^\/oauth\/v1\/refresh-tokens\/(.+)$/.exec(p);
      if (req.method === 'DELETE' && rt) {
        if (!refresh.delete(decodeURIComponent(rt[1]))) return err(res, 404, 'Token not found', 'OBJECT_NOT_FOUND');
        revoked++;
        return json(res, 204);
      }
      const hooks = new RegExp(`^/webhooks/v3/(\\d+)/(settings|subscriptions)(?:/(\\d+))?$`).exec(p);
      if (hooks) {
        if (hooks[1] !== appId || !opts.developerApiKey || url.searchParams.get('hapikey') !== opts.developerApiKey)
          return err(res, 401, 'The API key provided is invalid.', 'INVALID_AUTHENTICATION');
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        if (hooks[2] === 'settings' && req.method === 'PUT') {
          if (typeof body.targetUrl !== 'string' || !/^https?:\/\//.test(body.targetUrl)) return err(res, 400, 'targetUrl must be a URL');
          webhookSettings.targetUrl = body.targetUrl;
          return json(res, 200, { targetUrl: body.targetUrl, throttling: body.throttling, createdAt: new Date().toISOString() });
        }
        if (hooks[2] === 'subscriptions' && req.method === 'GET' && !hooks[3]) return json(res, 200, { results: subscriptions });
        if (hooks[2] === 'subscriptions' && req.method === 'POST' && !hooks[3]) {
          if (body.eventType === 'contact.propertyChange' && !body.propertyName) return err(res, 400, 'propertyName is required for propertyChange subscriptions');
          if (subscriptions.some((x) => x.eventType === body.eventType && x.propertyName === body.propertyName)) return err(res, 409, 'A subscription for this event already exists', 'CONFLICT');
          const sub = { id: ++nextId, eventType: String(body.eventType), propertyName: body.propertyName as string | undefined, active: body.active !== false, createdAt: new Date().toISOString() };
          subscriptions.push(sub);
          return json(res, 201, sub);
        }
        const sub = subscriptions.find((x) => String(x.id) === hooks[3]);
        if (hooks[2] === 'subscriptions' && req.method === 'PATCH' && sub) {
          sub.active = body.active !== false;
          return json(res, 200, sub);
        }
        return err(res, 404, 'Not found', 'OBJECT_NOT_FOUND');
      }
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      if (!auth || !access.has(auth)) return err(res, 401, 'Authentication credentials not found.', 'INVALID_AUTHENTICATION');
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (req.method === 'GET' && p === '/crm/v3/pipelines/deals')
        return json(res, 200, { results: pipelines.map((x) => ({ ...x, displayOrder: 0, archived: false })) });
      if (req.method === 'GET' && p === '/crm/v3/owners') return json(res, 200, { results: owners });
      const search = /^\/crm\/v3\/objects\/(contacts|companies)\/search$/.exec(p);
      if (req.method === 'POST' && search) {
        const f = (body.filterGroups as { filters: { propertyName: string; operator: string; value: string }[] }[])?.[0]?.filters?.[0];
        const list = objects[search[1] as 'contacts'].filter((o) => f && (o.properties[f.propertyName] ?? '').toLowerCase() === String(f.value).toLowerCase());
        return json(res, 200, { total: list.length, results: list.slice(0, Number(body.limit ?? 10)).map((o) => pick(o, body.properties as string[])) });
      }
      if (req.method === 'POST' && p === '/crm/v3/objects/deals/batch/read') {
        const ids = (body.inputs as { id: string }[]).map((i) => i.id);
        return json(res, 200, {
          status: 'COMPLETE',
          results: objects.deals.filter((d) => ids.includes(d.id)).map((o) => pick(o, body.properties as string[])),
        });
      }
      const create = /^\/crm\/v3\/objects\/(contacts|companies|deals|notes)$/.exec(p);
      if (req.method === 'POST' && create) {
        const kind = create[1] as keyof typeof objects;
        const props = (body.properties ?? {}) as Record<string, string>;
        if (kind === 'contacts' && objects.contacts.some((c) => c.properties.email?.toLowerCase() === props.email?.toLowerCase()))
          return err(res, 409, `Contact already exists. Existing ID: ${objects.contacts.find((c) => c.properties.email === props.email)!.id}`, 'CONFLICT');
        if (kind === 'deals' && (!props.dealname || !props.pipeline || !props.dealstage)) return err(res, 400, 'Property values were not valid');
        if (kind === 'notes' && !props.hs_timestamp) return err(res, 400, 'Property values were not valid: hs_timestamp is required');
        const o = make(kind, props);
        for (const a of (body.associations ?? []) as { to: { id: string }; types: { associationTypeId: number }[] }[])
          assoc.push({
            from: kind,
            fromId: o.id,
            to: a.types[0].associationTypeId === 3 || a.types[0].associationTypeId === 202 ? 'contacts' : 'unknown',
            toId: a.to.id,
            typeId: a.types[0].associationTypeId,
          });
        return json(res, 201, o);
      }
      const read = /^\/crm\/v3\/objects\/(contacts|companies)\/([^/]+)$/.exec(p);
      if (req.method === 'GET' && read) {
        const o = objects[read[1] as 'contacts'].find((x) => x.id === read[2]);
        if (!o) return err(res, 404, 'Object not found', 'OBJECT_NOT_FOUND');
        return json(res, 200, pick(o, url.searchParams.get('properties')?.split(',')));
      }
      if (req.method === 'PATCH' && read && read[1] === 'contacts') {
        const o = objects.contacts.find((x) => x.id === read[2]);
        if (!o) return err(res, 404, 'Object not found', 'OBJECT_NOT_FOUND');
        patches++;
        Object.assign(o.properties, body.properties as Record<string, string>);
        o.updatedAt = new Date().toISOString();
        o.properties.lastmodifieddate = o.updatedAt;
        return json(res, 200, o);
      }
      const def = /^\/crm\/v4\/objects\/contact\/(\d+)\/associations\/default\/company\/(\d+)$/.exec(p);
      if (req.method === 'PUT' && def) {
        const c = objects.contacts.find((x) => x.id === def[1]);
        if (!c || !objects.companies.some((x) => x.id === def[2])) return err(res, 404, 'Object not found', 'OBJECT_NOT_FOUND');
        c.properties.associatedcompanyid = def[2];
        return json(res, 200, {
          status: 'COMPLETE',
          results: [{ from: { id: def[1] }, to: { id: def[2] }, associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 } }],
        });
      }
      const deals = /^\/crm\/v4\/objects\/contacts\/(\d+)\/associations\/deals$/.exec(p);
      if (req.method === 'GET' && deals) {
        const list = assoc
          .filter((a) => a.from === 'deals' && a.toId === deals[1])
          .map((a) => ({ toObjectId: Number(a.fromId), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 4, label: null }] }));
        return json(res, 200, { results: list });
      }
      err(res, 404, `Unable to route ${req.method} request with ${p}`, 'OBJECT_NOT_FOUND');
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    hubId,
    objects,
    assoc,
    access,
    refresh,
    refreshedCount: () => refreshed,
    revokedCount: () => revoked,
    addContact: (p: Record<string, string>) => make('contacts', p).id,
    addDeal(contactId: string, p: Record<string, string>) {
      const d = make('deals', p);
      assoc.push({ from: 'deals', fromId: d.id, to: 'contacts', toId: contactId, typeId: 3 });
      return d.id;
    },
    appId,
    webhookSettings,
    subscriptions,
    patchCount: () => patches,
    /**
     * An edit in HubSpot: the property changes and, when the app subscribes to it, a signed batch goes to the target
     * URL — sent to `port` (the app on loopback) with the target's Host, so the signed URI is the one HubSpot knows.
     */
    async changeContact(contactId: string, property: string, value: string, o: { port: number; occurredAt?: number; secret?: string; timestamp?: number }) {
      const c = objects.contacts.find((x) => x.id === contactId)!;
      const occurredAt = o.occurredAt ?? Date.now();
      c.properties[property] = value;
      c.properties.lastmodifieddate = new Date(occurredAt).toISOString();
      if (!webhookSettings.targetUrl || !subscriptions.some((x) => x.active && x.eventType === 'contact.propertyChange' && x.propertyName === property)) return null;
      const body = JSON.stringify([
        { eventId: ++nextId, subscriptionId: 1, portalId: hubId, appId: Number(appId), occurredAt, subscriptionType: 'contact.propertyChange', attemptNumber: 0, objectId: Number(contactId), propertyName: property, propertyValue: value, changeSource: 'CRM_UI', sourceId: 'userId:1' },
      ]);
      const target = new URL(webhookSettings.targetUrl);
      const timestamp = String(o.timestamp ?? Date.now());
      const signature = crypto.createHmac('sha256', o.secret ?? opts.clientSecret).update(`POST${target.toString()}${body}${timestamp}`).digest('base64');
      return post({ port: o.port, path: `${target.pathname}${target.search}`, host: target.host, body, headers: { 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp } });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
