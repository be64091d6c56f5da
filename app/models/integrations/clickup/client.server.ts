import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { IntegrationError, providerCall } from '../http.server';
import type { TokenSet } from '../connections.server';

/**
 * ClickUp's API v2 and its OAuth 2.0 authorization-code flow (ADR 100). ClickUp's tokens do not expire and ClickUp
 * has no revoke endpoint: disconnecting deletes Parley's webhooks and the token, and the user removes the app in
 * ClickUp. Bases from CLICKUP_OAUTH_BASE and CLICKUP_API_BASE (stand-ins in tests).
 */
export function clickupConfig() {
  const c = getConfig().integrations.clickup;
  if (!c) throw new IntegrationError('ClickUp is not set up on this server (CLICKUP_CLIENT_ID and CLICKUP_CLIENT_SECRET)', 0);
  return c;
}

export function clickupAuthorizeUrl(opts: { redirectUri: string; state: string }) {
  const params = new URLSearchParams({ client_id: clickupConfig().clientId, redirect_uri: opts.redirectUri, state: opts.state });
  return `${clickupConfig().oauthBase}/api?${params}`;
}

/** POST /oauth/token with client_id, client_secret and code as query parameters; the answer is { access_token }. */
export async function exchangeClickupCode(opts: { code: string }): Promise<TokenSet> {
  const c = clickupConfig();
  const params = new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret, code: opts.code });
  const res = await providerCall('ClickUp', `${c.apiBase}/oauth/token?${params}`, { method: 'POST' });
  const b = (res.body ?? {}) as { access_token?: unknown };
  if (typeof b.access_token !== 'string') throw new IntegrationError('ClickUp sent no access token', 0);
  return { accessToken: b.access_token, refreshToken: null, expiresAt: null, scopes: '' };
}

const api = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('ClickUp', `${clickupConfig().apiBase}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });

export async function clickupUser(token: string) {
  const u = ((((await api(token, '/user')).body ?? {}) as { user?: unknown }).user ?? {}) as { id?: number; username?: string; email?: string };
  return { id: Number(u.id ?? 0), username: String(u.username ?? ''), email: String(u.email ?? '') };
}

/** The Workspaces ("teams" in API v2) the user authorized for Parley. */
export async function clickupTeams(token: string) {
  const t = (((await api(token, '/team')).body ?? {}) as { teams?: { id: string | number; name?: string }[] }).teams ?? [];
  return t.map((x) => ({ id: String(x.id), name: String(x.name ?? '') }));
}

export type ClickupTask = { id: string; name: string; url: string; status: string; closed: boolean; teamId: string };

/** A status of type "closed" (or "done") ends the task; "open" and "custom" ones do not. */
export const isClosedType = (type: unknown) => type === 'closed' || type === 'done';

function readTask(b: unknown): ClickupTask {
  const t = (b ?? {}) as { id?: string; name?: string; url?: string; status?: { status?: string; type?: string }; team_id?: string | number };
  return { id: String(t.id ?? ''), name: String(t.name ?? ''), url: String(t.url ?? ''), status: String(t.status?.status ?? ''), closed: isClosedType(t.status?.type), teamId: String(t.team_id ?? '') };
}

export const isListId = (v: string) => /^\d{1,20}$/.test(v);
export const isTaskId = (v: string) => /^[A-Za-z0-9_-]{1,40}$/.test(v);

/** POST /list/{list_id}/task; assignees are ClickUp user ids. */
export async function createClickupTask(token: string, opts: { listId: string; name: string; description: string; assignee: number | null }) {
  const json = { name: opts.name, description: opts.description, ...(opts.assignee ? { assignees: [opts.assignee] } : {}) };
  return readTask((await api(token, `/list/${opts.listId}/task`, { method: 'POST', json })).body);
}

export async function getClickupTask(token: string, id: string) {
  return readTask((await api(token, `/task/${encodeURIComponent(id)}`)).body);
}

/** POST /team/{team_id}/webhook for taskStatusUpdated; ClickUp answers with the webhook's id and its signing secret. */
export async function createClickupWebhook(token: string, opts: { teamId: string; endpoint: string }) {
  const res = await api(token, `/team/${encodeURIComponent(opts.teamId)}/webhook`, { method: 'POST', json: { endpoint: opts.endpoint, events: ['taskStatusUpdated'] } });
  const w = (((res.body ?? {}) as { webhook?: unknown }).webhook ?? {}) as { id?: string; secret?: string };
  if (!w.id || !w.secret) throw new IntegrationError('ClickUp did not return the webhook', 0);
  return { id: String(w.id), secret: String(w.secret) };
}

export async function deleteClickupWebhook(token: string, id: string) {
  await api(token, `/webhook/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** X-Signature: hex HMAC-SHA256 of the raw body with the webhook's secret. */
export function verifyClickupSignature(rawBody: string, header: string | null, secret: string) {
  if (!header) return false;
  return safeEqual(header, hmac('sha256', secret, rawBody).digest('hex'));
}

/** GET /team/{id}/space: the Workspace's Spaces. */
export async function listClickupSpaces(token: string, teamId: string) {
  const b = ((await api(token, `/team/${encodeURIComponent(teamId)}/space?archived=false`)).body ?? {}) as { spaces?: { id?: string | number; name?: string }[] };
  return (b.spaces ?? []).map((x) => ({ id: String(x.id ?? ''), name: String(x.name ?? '') }));
}

/** A Space's lists: those in its folders (GET /space/{id}/folder) and those outside any (GET /space/{id}/list), named "Folder › List". */
export async function listClickupLists(token: string, spaceId: string) {
  const id = encodeURIComponent(spaceId);
  const [folders, loose] = await Promise.all([api(token, `/space/${id}/folder?archived=false`), api(token, `/space/${id}/list?archived=false`)]);
  type L = { id?: string | number; name?: string };
  const inFolders = (((folders.body ?? {}) as { folders?: { name?: string; lists?: L[] }[] }).folders ?? []).flatMap((f) =>
    (f.lists ?? []).map((l) => ({ id: String(l.id ?? ''), name: `${String(f.name ?? '')} › ${String(l.name ?? '')}` })),
  );
  const outside = (((loose.body ?? {}) as { lists?: L[] }).lists ?? []).map((l) => ({ id: String(l.id ?? ''), name: String(l.name ?? '') }));
  return [...inFolders, ...outside].filter((l) => isListId(l.id));
}
