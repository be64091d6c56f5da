import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { exchangeCode, refreshTokens, type OAuth2Provider } from '../../../utils/oauth2.server';
import { IntegrationError, providerCall, tokenSet, viaOAuth } from '../http.server';

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

const githubOAuth = (): OAuth2Provider => {
  const g = githubConfig();
  return { name: 'GitHub', authorizeUrl: `${g.oauthBase}/login/oauth/authorize`, tokenUrl: `${g.oauthBase}/login/oauth/access_token`, clientId: g.clientId, clientSecret: g.clientSecret };
};

export const exchangeGithubCode = async (opts: { code: string; redirectUri: string }) => tokenSet(await viaOAuth(() => exchangeCode(githubOAuth(), opts)));

export const refreshGithubToken = async (refreshToken: string) => tokenSet(await viaOAuth(() => refreshTokens(githubOAuth(), { refreshToken })));

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
