import crypto from 'node:crypto';
import { integrationsInPlan, PLAN_IGNORED } from '../plan.server';
import { disconnectIntegration, freshAccessToken, getOpenConnection, getOpenConnectionById, saveConnection, signIntegrationState, updateConnectionSettings, verifyIntegrationState, type OAuthAdapter, type OpenConnection } from '../connections.server';
import { IntegrationError } from '../http.server';
import { closeLinkedItem, listConversationLinks, reopenLinkedItem, saveConversationLink, updateLinkStatus } from '../links.server';
import { ConnectRefusedError } from '../shopify/shopify.server';
import { createGithubIssue, ensureGithubHook, exchangeGithubCode, getGithubIssue, githubAuthorizeUrl, githubLogin, isRepoName, refreshGithubToken, revokeGithubGrant, verifyGithubSignature } from './client.server';

export const githubAdapter: OAuthAdapter = {
  refresh: (refreshToken) => refreshGithubToken(refreshToken),
  revoke: (conn) => revokeGithubGrant(conn.accessToken),
};

export type GithubSettings = { defaultRepo: string; reopenOnClose: boolean; hookedRepos: string[] };

export function githubSettings(raw: Record<string, unknown> | undefined): GithubSettings {
  return {
    defaultRepo: typeof raw?.defaultRepo === 'string' ? raw.defaultRepo : '',
    reopenOnClose: raw?.reopenOnClose === true,
    hookedRepos: Array.isArray(raw?.hookedRepos) ? (raw.hookedRepos as unknown[]).filter((r): r is string => typeof r === 'string') : [],
  };
}

export function startGithubConnect(opts: { accountId: number; userId: number; redirectUri: string }) {
  return githubAuthorizeUrl({ redirectUri: opts.redirectUri, state: signIntegrationState({ ...opts, provider: 'github' }) });
}

export async function finishGithubConnect(opts: { accountId: number; userId: number; params: URLSearchParams; redirectUri: string }) {
  if (!verifyIntegrationState(opts.params.get('state') ?? '', { ...opts, provider: 'github' })) throw new ConnectRefusedError('The GitHub sign-in link has expired or was not started here. Please connect again.');
  const tokens = await exchangeGithubCode({ code: (opts.params.get('code') ?? '').slice(0, 512), redirectUri: opts.redirectUri });
  const login = await githubLogin(tokens.accessToken);
  const previous = await getOpenConnection({ accountId: opts.accountId, provider: 'github' }).catch(() => null);
  // Each connection signs its repository webhooks with its own secret (sealed like the tokens).
  return saveConnection({ accountId: opts.accountId, userId: opts.userId, provider: 'github', externalAccount: login, tokens, webhookSecret: crypto.randomBytes(32).toString('hex'), settings: { ...githubSettings(previous?.settings), hookedRepos: [] } });
}

export const disconnectGithub = (opts: { accountId: number; userId: number }) => disconnectIntegration({ ...opts, provider: 'github', adapter: githubAdapter });

export async function saveGithubSettings(opts: { accountId: number; defaultRepo: string; reopenOnClose: boolean }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'github' });
  if (!conn) throw new IntegrationError('GitHub is not connected', 0);
  return updateConnectionSettings({ accountId: opts.accountId, provider: 'github', settings: { ...githubSettings(conn.settings), defaultRepo: opts.defaultRepo, reopenOnClose: opts.reopenOnClose } });
}

async function connected(accountId: number) {
  const conn = await getOpenConnection({ accountId, provider: 'github' });
  if (!conn) throw new IntegrationError('GitHub is not connected', 0);
  return { conn, token: await freshAccessToken(conn, githubAdapter) };
}

/** The repository gets Parley's webhook the first time an issue of it is linked, so its closing is heard. */
async function hookRepo(conn: OpenConnection, token: string, repo: string, webhookUrl: string) {
  const s = githubSettings(conn.settings);
  if (s.hookedRepos.includes(repo) || !conn.webhookSecret) return;
  await ensureGithubHook(token, { repo, url: webhookUrl, secret: conn.webhookSecret });
  await updateConnectionSettings({ accountId: conn.accountId, provider: 'github', settings: { ...s, hookedRepos: [...s.hookedRepos, repo].slice(-200) } });
}

export const githubWebhookUrl = (publicBase: string, connectionId: number) => `${publicBase}/webhooks/integrations/github/${connectionId}`;

export async function createGithubIssueFromConversation(opts: {
  accountId: number;
  userId: number;
  conversationId: number;
  repo: string;
  title: string;
  body: string;
  assignee: string | null;
  reopenOnClose: boolean;
  conversationUrl: string;
  publicBase: string;
}) {
  if (!isRepoName(opts.repo)) throw new IntegrationError('Repository must be owner/name', 400);
  const { conn, token } = await connected(opts.accountId);
  const body = `${opts.body.trim()}\n\n---\nFrom Parley conversation #${opts.conversationId}: ${opts.conversationUrl}`;
  const issue = await createGithubIssue(token, { repo: opts.repo, title: opts.title, body, assignee: opts.assignee });
  await hookRepo(conn, token, opts.repo, githubWebhookUrl(opts.publicBase, conn.id));
  await saveConversationLink({ ...opts, provider: 'github', externalId: `${issue.repo}#${issue.number}`, title: issue.title, url: issue.url, status: issue.state, created: true });
  return issue;
}

/** "owner/repo#12" or an issue's github.com address. */
export function parseIssueRef(input: string) {
  const v = input.trim();
  const m = /^([A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100})#(\d{1,9})$/.exec(v) ?? /^https?:\/\/[^/]+\/([A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100})\/issues\/(\d{1,9})\/?$/.exec(v);
  return m ? { repo: m[1], number: Number(m[2]) } : null;
}

export async function linkGithubIssue(opts: { accountId: number; userId: number; conversationId: number; ref: string; reopenOnClose: boolean; publicBase: string }) {
  const ref = parseIssueRef(opts.ref);
  if (!ref) throw new IntegrationError('Enter an issue as owner/repo#number or its GitHub address', 400);
  const { conn, token } = await connected(opts.accountId);
  const issue = await getGithubIssue(token, ref);
  await hookRepo(conn, token, ref.repo, githubWebhookUrl(opts.publicBase, conn.id));
  await saveConversationLink({ ...opts, provider: 'github', externalId: `${ref.repo}#${issue.number}`, title: issue.title, url: issue.url, status: issue.state, created: false });
  return issue;
}

/** The panel: the linked issues as last known; `refresh` reads their state at GitHub first. */
export async function githubPanelFor(opts: { accountId: number; conversationId: number; refresh?: boolean }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'github' }).catch(() => null);
  if (!conn) return { connected: false as const };
  const links = await listConversationLinks({ ...opts, provider: 'github' });
  let error: string | null = null;
  if (opts.refresh && links.length) {
    try {
      const token = await freshAccessToken(conn, githubAdapter);
      for (const link of links) {
        const ref = parseIssueRef(link.externalId);
        if (!ref) continue;
        const issue = await getGithubIssue(token, ref);
        if (issue.state !== link.status || issue.title !== link.title) {
          await updateLinkStatus({ accountId: opts.accountId, id: link.id, status: issue.state, title: issue.title });
          link.status = issue.state;
          link.title = issue.title;
        }
      }
    } catch (err) {
      if (!(err instanceof IntegrationError)) throw err;
      error = err.message;
    }
  }
  const s = githubSettings(conn.settings);
  return { connected: true as const, login: conn.externalAccount, defaultRepo: s.defaultRepo, reopenOnClose: s.reopenOnClose, links, error };
}

/**
 * POST /webhooks/integrations/github/{connectionId}: `issues` deliveries signed with that connection's secret
 * (X-Hub-Signature-256). closed → a note on every linked conversation (and a reopen where chosen); reopened → the
 * link is open again. Unsigned, forged or unknown: refused with nothing changed.
 */
export async function handleGithubWebhook(opts: { connectionId: number; rawBody: string; headers: Headers }): Promise<{ status: number; text: string }> {
  const conn = await getOpenConnectionById({ id: opts.connectionId, provider: 'github' }).catch(() => null);
  if (!conn?.webhookSecret) return { status: 404, text: 'Unknown hook' };
  if (!verifyGithubSignature(opts.rawBody, opts.headers.get('x-hub-signature-256'), conn.webhookSecret)) return { status: 401, text: 'The signature does not match' };
  if (!(await integrationsInPlan(conn.accountId))) return PLAN_IGNORED;
  const event = opts.headers.get('x-github-event') ?? '';
  if (event === 'ping') return { status: 200, text: 'pong' };
  if (event !== 'issues') return { status: 202, text: 'ignored event' };
  let payload: { action?: string; issue?: { number?: number }; repository?: { full_name?: string }; sender?: { login?: string } };
  try {
    payload = JSON.parse(opts.rawBody);
  } catch {
    return { status: 400, text: 'The body is not JSON' };
  }
  const repo = payload.repository?.full_name;
  const number = payload.issue?.number;
  if (!repo || !number) return { status: 400, text: 'No issue in the delivery' };
  const externalId = `${repo}#${number}`;
  if (payload.action === 'closed') {
    const n = await closeLinkedItem({ accountId: conn.accountId, provider: 'github', externalId, by: payload.sender?.login ?? '' });
    return { status: 200, text: `${n} conversation(s)` };
  }
  if (payload.action === 'reopened') {
    await reopenLinkedItem({ accountId: conn.accountId, provider: 'github', externalId });
    return { status: 200, text: 'reopened' };
  }
  return { status: 202, text: 'ignored action' };
}
