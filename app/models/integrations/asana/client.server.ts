import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { IntegrationError, providerCall } from '../http.server';
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

function readTokens(body: unknown): TokenSet & { user: { gid: string; name: string; email: string } } {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.access_token !== 'string') throw new IntegrationError('Asana sent no access token', 0);
  const d = (b.data ?? {}) as Record<string, unknown>;
  return {
    accessToken: b.access_token,
    refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : null,
    expiresAt: typeof b.expires_in === 'number' ? new Date(Date.now() + b.expires_in * 1000) : null,
    scopes: ASANA_SCOPES,
    user: { gid: String(d.gid ?? d.id ?? ''), name: String(d.name ?? ''), email: String(d.email ?? '') },
  };
}

const oauthForm = (extra: Record<string, string>) => ({ client_id: asanaConfig().clientId, client_secret: asanaConfig().clientSecret, ...extra });

export async function exchangeAsanaCode(opts: { code: string; redirectUri: string }) {
  const res = await providerCall('Asana', `${asanaConfig().oauthBase}/-/oauth_token`, { method: 'POST', form: oauthForm({ grant_type: 'authorization_code', code: opts.code, redirect_uri: opts.redirectUri }) });
  return readTokens(res.body);
}

export async function refreshAsanaToken(refreshToken: string) {
  const res = await providerCall('Asana', `${asanaConfig().oauthBase}/-/oauth_token`, { method: 'POST', form: oauthForm({ grant_type: 'refresh_token', refresh_token: refreshToken }) });
  const t = readTokens(res.body);
  // Asana keeps the refresh token; its refresh answer carries none.
  return { ...t, refreshToken: t.refreshToken ?? refreshToken };
}

/** POST /-/oauth_revoke with the refresh token: the grant and its access tokens end. */
export async function revokeAsanaToken(token: string) {
  await providerCall('Asana', `${asanaConfig().oauthBase}/-/oauth_revoke`, { method: 'POST', form: oauthForm({ token }) });
}

const api = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('Asana', `${asanaConfig().apiBase}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });

const dataOf = (b: unknown) => ((b ?? {}) as { data?: unknown }).data;

export async function asanaMe(token: string) {
  const d = (dataOf((await api(token, '/users/me?opt_fields=name,email,workspaces.name')).body) ?? {}) as { gid?: string; name?: string; email?: string; workspaces?: { gid: string; name: string }[] };
  return { gid: String(d.gid ?? ''), name: String(d.name ?? ''), email: String(d.email ?? ''), workspaces: (d.workspaces ?? []).map((w) => ({ gid: String(w.gid), name: String(w.name ?? '') })) };
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
export async function createAsanaTask(token: string, opts: { name: string; notes: string; projectGid: string | null; workspaceGid: string | null; assignee: string | null }) {
  const data: Record<string, unknown> = { name: opts.name, notes: opts.notes };
  if (opts.projectGid) data.projects = [opts.projectGid];
  else if (opts.workspaceGid) data.workspace = opts.workspaceGid;
  else throw new IntegrationError('Choose an Asana project or workspace', 400);
  if (opts.assignee) data.assignee = opts.assignee;
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
