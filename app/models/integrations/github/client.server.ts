import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { IntegrationError, providerCall } from '../http.server';
import type { TokenSet } from '../connections.server';

/**
 * GitHub's REST API v3 and the OAuth web application flow (ADR 080). An OAuth App's tokens do not expire; a GitHub
 * App's user tokens do (expires_in + refresh_token), and are refreshed before expiry like any other.
 * Bases from GITHUB_OAUTH_BASE and GITHUB_API_BASE (stand-ins in tests, GitHub Enterprise for self-hosters).
 */
export function githubConfig() {
  const g = getConfig().integrations.github;
  if (!g) throw new IntegrationError('GitHub is not set up on this server (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET)', 0);
  return g;
}

export const isGithubConfigured = () => getConfig().integrations.github !== null;

export function githubAuthorizeUrl(opts: { redirectUri: string; state: string }) {
  const params = new URLSearchParams({ client_id: githubConfig().clientId, redirect_uri: opts.redirectUri, scope: 'repo admin:repo_hook', state: opts.state, allow_signup: 'false' });
  return `${githubConfig().oauthBase}/login/oauth/authorize?${params}`;
}

function readTokens(body: unknown): TokenSet {
  const b = (body ?? {}) as Record<string, unknown>;
  // GitHub answers token errors with 200 and { error, error_description }.
  if (typeof b.error === 'string') throw new IntegrationError(`GitHub answered: ${String(b.error_description ?? b.error)}`, 400);
  if (typeof b.access_token !== 'string') throw new IntegrationError('GitHub sent no access token', 0);
  return {
    accessToken: b.access_token,
    refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : null,
    expiresAt: typeof b.expires_in === 'number' ? new Date(Date.now() + b.expires_in * 1000) : null,
    scopes: typeof b.scope === 'string' ? b.scope : '',
  };
}

export async function exchangeGithubCode(opts: { code: string; redirectUri: string }) {
  const g = githubConfig();
  const res = await providerCall('GitHub', `${g.oauthBase}/login/oauth/access_token`, { method: 'POST', form: { client_id: g.clientId, client_secret: g.clientSecret, code: opts.code, redirect_uri: opts.redirectUri } });
  return readTokens(res.body);
}

export async function refreshGithubToken(refreshToken: string) {
  const g = githubConfig();
  const res = await providerCall('GitHub', `${g.oauthBase}/login/oauth/access_token`, { method: 'POST', form: { client_id: g.clientId, client_secret: g.clientSecret, grant_type: 'refresh_token', refresh_token: refreshToken } });
  return readTokens(res.body);
}

/** DELETE /applications/{client_id}/grant: the whole grant goes, with every token of it. */
export async function revokeGithubGrant(token: string) {
  const g = githubConfig();
  await providerCall('GitHub', `${g.apiBase}/applications/${encodeURIComponent(g.clientId)}/grant`, {
    method: 'DELETE',
    headers: { authorization: `Basic ${Buffer.from(`${g.clientId}:${g.clientSecret}`).toString('base64')}` },
    json: { access_token: token },
  });
}

const api = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('GitHub', `${githubConfig().apiBase}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' } });

export async function githubLogin(token: string) {
  const res = await api(token, '/user');
  return String((res.body as { login?: string })?.login ?? '');
}

export type GithubIssue = { number: number; title: string; url: string; state: 'open' | 'closed'; repo: string };

const REPO = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;
export const isRepoName = (v: string) => REPO.test(v);

function readIssue(repo: string, b: unknown): GithubIssue {
  const i = (b ?? {}) as Record<string, unknown>;
  return { number: Number(i.number), title: String(i.title ?? ''), url: String(i.html_url ?? ''), state: i.state === 'closed' ? 'closed' : 'open', repo };
}

export async function createGithubIssue(token: string, opts: { repo: string; title: string; body: string; assignee: string | null }) {
  const res = await api(token, `/repos/${opts.repo}/issues`, { method: 'POST', json: { title: opts.title, body: opts.body, ...(opts.assignee ? { assignees: [opts.assignee] } : {}) } });
  return readIssue(opts.repo, res.body);
}

export async function getGithubIssue(token: string, opts: { repo: string; number: number }) {
  const res = await api(token, `/repos/${opts.repo}/issues/${opts.number}`);
  return readIssue(opts.repo, res.body);
}

/** A repository webhook for `issues` events, signed with the connection's secret; "already exists" is fine. */
export async function ensureGithubHook(token: string, opts: { repo: string; url: string; secret: string }) {
  try {
    await api(token, `/repos/${opts.repo}/hooks`, { method: 'POST', json: { name: 'web', active: true, events: ['issues'], config: { url: opts.url, content_type: 'json', secret: opts.secret, insecure_ssl: '0' } } });
  } catch (err) {
    if (!(err instanceof IntegrationError && err.status === 422)) throw err;
  }
}

/** X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256 of the raw body with the hook's secret. */
export function verifyGithubSignature(rawBody: string, header: string | null, secret: string) {
  if (!header) return false;
  return safeEqual(header, `sha256=${hmac('sha256', secret, rawBody).digest('hex')}`);
}
