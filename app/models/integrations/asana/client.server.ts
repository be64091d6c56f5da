import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { exchangeCode, refreshTokens, revokeToken, type OAuth2Provider, type OAuth2Tokens } from '../../../utils/oauth2.server';
import { IntegrationError, providerCall, tokenSet, viaOAuth } from '../http.server';
import type { TokenSet } from '../connections.server';

/**
 * Asana's REST API 1.0 and its OAuth 2.0 authorization-code flow (ADR 100). Access tokens live an hour and are
 * refreshed before expiry; revoking the refresh token ends the grant. Every body is wrapped in { data }.
 * Bases from ASANA_OAUTH_BASE and ASANA_API_BASE (stand-ins in tests).
 */
export function asanaConfig() {
  const a = getConfig().integrations.asana;
  if (!a) throw new IntegrationError('Asana is not set up on this server (ASANA_CLIENT_ID and ASANA_CLIENT_SECRET)', 0);
  return a;
}

/** The scopes Parley asks for: read and write tasks, see users, workspaces and projects, and manage webhooks. */
export const ASANA_SCOPES = 'tasks:read tasks:write users:read workspaces:read projects:read webhooks:read webhooks:write webhooks:delete';

export function asanaAuthorizeUrl(opts: { redirectUri: string; state: string }) {
  const params = new URLSearchParams({ client_id: asanaConfig().clientId, redirect_uri: opts.redirectUri, response_type: 'code', state: opts.state, scope: ASANA_SCOPES });
  return `${asanaConfig().oauthBase}/-/oauth_authorize?${params}`;
}

const asanaOAuth = (): OAuth2Provider => {
  const a = asanaConfig();
  return {
    name: 'Asana',
    authorizeUrl: `${a.oauthBase}/-/oauth_authorize`,
    tokenUrl: `${a.oauthBase}/-/oauth_token`,
    revokeUrl: `${a.oauthBase}/-/oauth_revoke`,
    clientId: a.clientId,
    clientSecret: a.clientSecret,
  };
};

/** Asana's token answer names the user in `data`. */
function withUser(t: OAuth2Tokens): TokenSet & { user: { gid: string; name: string; email: string } } {
  const d = (t.raw.data ?? {}) as Record<string, unknown>;
  return { ...tokenSet(t), scopes: ASANA_SCOPES, user: { gid: String(d.gid ?? d.id ?? ''), name: String(d.name ?? ''), email: String(d.email ?? '') } };
}

export const exchangeAsanaCode = async (opts: { code: string; redirectUri: string }) => withUser(await viaOAuth(() => exchangeCode(asanaOAuth(), opts)));

/** Asana keeps the refresh token; its refresh answer carries none (the client keeps the old one). */
export const refreshAsanaToken = async (refreshToken: string) => withUser(await viaOAuth(() => refreshTokens(asanaOAuth(), { refreshToken })));

/** POST /-/oauth_revoke with the refresh token: the grant and its access tokens end. */
export async function revokeAsanaToken(token: string) {
  await viaOAuth(() => revokeToken(asanaOAuth(), { token }));
}

const api = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('Asana', `${asanaConfig().apiBase}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });

const dataOf = (b: unknown) => ((b ?? {}) as { data?: unknown }).data;

export async function asanaMe(token: string) {
  const d = (dataOf((await api(token, '/users/me?opt_fields=name,email,workspaces.name')).body) ?? {}) as { gid?: string; name?: string; email?: string; workspaces?: { gid: string; name: string }[] };
  return { gid: String(d.gid ?? ''), name: String(d.name ?? ''), email: String(d.email ?? ''), workspaces: (d.workspaces ?? []).map((w) => ({ gid: String(w.gid), name: String(w.name ?? '') })) };
}

/** GET /projects?workspace=: the workspace's active projects, a page of 100 at a time (at most 500, named A to Z). */
export async function listAsanaProjects(token: string, workspaceGid: string) {
  const out: { gid: string; name: string }[] = [];
  let offset: string | null = null;
  for (let page = 0; page < 5; page++) {
    const q = new URLSearchParams({ workspace: workspaceGid, archived: 'false', limit: '100', opt_fields: 'name' });
    if (offset) q.set('offset', offset);
    const res = await api(token, `/projects?${q}`);
    const b = (res.body ?? {}) as { data?: { gid?: string; name?: string }[]; next_page?: { offset?: string } | null };
    out.push(...(b.data ?? []).map((p) => ({ gid: String(p.gid ?? ''), name: String(p.name ?? '') })).filter((p) => isGid(p.gid)));
    offset = b.next_page?.offset ?? null;
    if (!offset) break;
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export type AsanaTask = { gid: string; name: string; url: string; completed: boolean; assignee: string | null };
const TASK_FIELDS = 'opt_fields=name,completed,permalink_url,assignee.name';

function readTask(b: unknown): AsanaTask {
  const t = (dataOf(b) ?? {}) as { gid?: string; name?: string; permalink_url?: string; completed?: boolean; assignee?: { name?: string } | null };
  return { gid: String(t.gid ?? ''), name: String(t.name ?? ''), url: String(t.permalink_url ?? ''), completed: t.completed === true, assignee: t.assignee?.name ?? null };
}

export const isGid = (v: string) => /^\d{1,30}$/.test(v);

/**
 * POST /tasks: in the project when one is given (Asana takes the workspace from it), else in the workspace.
 * The assignee is "me", an email address or a user gid, as Asana accepts.
 */
export async function createAsanaTask(token: string, opts: { name: string; notes: string; projectGid: string | null; workspaceGid: string | null; assignee: string | null; dueOn?: string | null }) {
  const data: Record<string, unknown> = { name: opts.name, notes: opts.notes };
  if (opts.projectGid) data.projects = [opts.projectGid];
  else if (opts.workspaceGid) data.workspace = opts.workspaceGid;
  else throw new IntegrationError('Choose an Asana project or workspace', 400);
  if (opts.assignee) data.assignee = opts.assignee;
  if (opts.dueOn) data.due_on = opts.dueOn;
  return readTask((await api(token, `/tasks?${TASK_FIELDS}`, { method: 'POST', json: { data } })).body);
}

export async function getAsanaTask(token: string, gid: string) {
  return readTask((await api(token, `/tasks/${gid}?${TASK_FIELDS}`)).body);
}

/**
 * POST /webhooks on one task, for changes of its `completed` field. Asana posts the X-Hook-Secret handshake to the
 * target while this call is in flight; the answer carries the webhook's gid.
 */
export async function createAsanaWebhook(token: string, opts: { resource: string; target: string }) {
  const res = await api(token, '/webhooks', { method: 'POST', json: { data: { resource: opts.resource, target: opts.target, filters: [{ resource_type: 'task', action: 'changed', fields: ['completed'] }] } } });
  return String(((dataOf(res.body) ?? {}) as { gid?: string }).gid ?? '');
}

/** X-Hook-Signature: hex HMAC-SHA256 of the raw body with the secret of the handshake. */
export function verifyAsanaSignature(rawBody: string, header: string | null, secret: string) {
  if (!header) return false;
  return safeEqual(header, hmac('sha256', secret, rawBody).digest('hex'));
}
