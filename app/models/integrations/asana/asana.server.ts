import { integrationsInPlan, PLAN_IGNORED } from '../plan.server';
import {
  disconnectIntegration,
  freshAccessToken,
  getOpenConnection,
  getOpenConnectionById,
  saveConnection,
  signIntegrationState,
  updateConnectionSettings,
  verifyIntegrationState,
  type OAuthAdapter,
  type OpenConnection,
} from '../connections.server';
import { IntegrationError } from '../http.server';
import { closeLinkedItem, reopenLinkedItem } from '../links.server';
import { connectedTaskProvider, hookAndLinkTask, linkExistingTask, taskLinksPanel, type TaskSource } from '../task-providers.server';
import { ConnectRefusedError } from '../shopify/shopify.server';
import { acceptHandshake, expectHandshake, hookFor, reloadHooks, setHookId } from '../task-hooks.server';
import {
  asanaAuthorizeUrl,
  asanaMe,
  createAsanaTask,
  createAsanaWebhook,
  exchangeAsanaCode,
  getAsanaTask,
  listAsanaProjects,
  isGid,
  refreshAsanaToken,
  revokeAsanaToken,
  verifyAsanaSignature,
  type AsanaTask,
} from './client.server';

/** Asana (ADR 100): tasks created or linked from conversations; a completed task notes (and can reopen) them. */
export const asanaAdapter: OAuthAdapter = {
  refresh: (refreshToken) => refreshAsanaToken(refreshToken),
  revoke: (conn) => revokeAsanaToken(conn.refreshToken ?? conn.accessToken),
};

export type AsanaSettings = { workspaces: { gid: string; name: string }[]; defaultWorkspace: string; defaultProject: string; reopenOnClose: boolean };

export function asanaSettings(raw: Record<string, unknown> | undefined): AsanaSettings {
  const ws = Array.isArray(raw?.workspaces)
    ? (raw.workspaces as { gid?: unknown; name?: unknown }[]).map((w) => ({ gid: String(w.gid ?? ''), name: String(w.name ?? '') })).filter((w) => isGid(w.gid))
    : [];
  return {
    workspaces: ws,
    defaultWorkspace: typeof raw?.defaultWorkspace === 'string' ? raw.defaultWorkspace : ws[0]?.gid ?? '',
    defaultProject: typeof raw?.defaultProject === 'string' ? raw.defaultProject : '',
    reopenOnClose: raw?.reopenOnClose === true,
  };
}

export function startAsanaConnect(opts: { accountId: number; userId: number; redirectUri: string }) {
  return asanaAuthorizeUrl({ redirectUri: opts.redirectUri, state: signIntegrationState({ ...opts, provider: 'asana' }) });
}

export async function finishAsanaConnect(opts: { accountId: number; userId: number; params: URLSearchParams; redirectUri: string }) {
  if (!verifyIntegrationState(opts.params.get('state') ?? '', { ...opts, provider: 'asana' }))
    throw new ConnectRefusedError('The Asana sign-in link has expired or was not started here. Please connect again.');
  const tokens = await exchangeAsanaCode({ code: (opts.params.get('code') ?? '').slice(0, 512), redirectUri: opts.redirectUri });
  const me = await asanaMe(tokens.accessToken);
  const previous = await getOpenConnection({ accountId: opts.accountId, provider: 'asana' }).catch(() => null);
  const settings = { ...(previous?.settings ?? {}), workspaces: me.workspaces.slice(0, 50) };
  return saveConnection({
    accountId: opts.accountId,
    userId: opts.userId,
    provider: 'asana',
    externalAccount: me.email || me.name || tokens.user.email,
    tokens,
    settings,
  });
}

export const disconnectAsana = (opts: { accountId: number; userId: number }) => disconnectIntegration({ ...opts, provider: 'asana', adapter: asanaAdapter });

export async function saveAsanaSettings(opts: { accountId: number; defaultWorkspace: string; defaultProject: string; reopenOnClose: boolean }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'asana' });
  if (!conn) throw new IntegrationError('Asana is not connected', 0);
  const s = asanaSettings(conn.settings);
  if (opts.defaultWorkspace && !s.workspaces.some((w) => w.gid === opts.defaultWorkspace))
    throw new IntegrationError('Choose one of your Asana workspaces', 400);
  return updateConnectionSettings({
    accountId: opts.accountId,
    provider: 'asana',
    settings: { ...conn.settings, defaultWorkspace: opts.defaultWorkspace, defaultProject: opts.defaultProject, reopenOnClose: opts.reopenOnClose },
  });
}

/** Runs a call with a fresh token; a 401 (a token revoked or expired early at Asana) refreshes once and retries. */
async function withToken<T>(conn: OpenConnection, fn: (token: string) => Promise<T>) {
  try {
    return await fn(await freshAccessToken(conn, asanaAdapter));
  } catch (err) {
    if (!(err instanceof IntegrationError && err.status === 401 && conn.refreshToken)) throw err;
    conn.tokenExpiresAt = new Date(0);
    return fn(await freshAccessToken(conn, asanaAdapter));
  }
}

export const asanaWebhookUrl = (publicBase: string, connectionId: number, taskGid: string) =>
  `${publicBase}/webhooks/integrations/asana/${connectionId}/${taskGid}`;

/** One webhook per linked task (for its `completed` field), created the first time the task is linked. */
async function hookTask(conn: OpenConnection, token: string, taskGid: string, publicBase: string) {
  if (hookFor(await reloadHooks(conn), taskGid)) return;
  await expectHandshake(conn, taskGid);
  const gid = await createAsanaWebhook(token, { resource: taskGid, target: asanaWebhookUrl(publicBase, conn.id, taskGid) });
  if (!(await setHookId(conn, taskGid, gid))) throw new IntegrationError('Asana did not complete the webhook handshake', 0);
}

const statusOf = (t: AsanaTask) => (t.completed ? 'closed' : 'open');

type Who = { accountId: number; userId: number; conversationId: number; reopenOnClose: boolean; publicBase: string };

/** Asana's calls for the shared task steps (task-providers.server.ts). */
const asanaTasks: TaskSource<AsanaTask> = {
  provider: 'asana',
  label: 'Asana',
  adapter: asanaAdapter,
  parseRef: (ref) => parseAsanaTaskRef(ref),
  get: getAsanaTask,
  view: (t) => ({ id: t.gid, title: t.name, url: t.url, status: statusOf(t) }),
  hook: (conn, token, t, publicBase) => hookTask(conn, token, t.gid, publicBase),
  withToken,
};

export async function createAsanaTaskFromConversation(
  opts: Who & { name: string; notes: string; projectGid: string; workspaceGid: string; assignee: string; dueOn?: string; conversationUrl: string },
) {
  if (opts.projectGid && !isGid(opts.projectGid)) throw new IntegrationError('Project must be an Asana project ID (digits)', 400);
  const { conn, token } = await connectedTaskProvider(asanaTasks, opts.accountId);
  const s = asanaSettings(conn.settings);
  const workspaceGid = opts.workspaceGid || s.defaultWorkspace;
  if (workspaceGid && !s.workspaces.some((w) => w.gid === workspaceGid)) throw new IntegrationError('Choose one of your Asana workspaces', 400);
  const notes = `${opts.notes.trim()}\n\n---\nFrom Parley conversation #${opts.conversationId}: ${opts.conversationUrl}`;
  const task = await createAsanaTask(token, {
    name: opts.name,
    notes,
    projectGid: opts.projectGid || null,
    workspaceGid: workspaceGid || null,
    assignee: opts.assignee || null,
    dueOn: opts.dueOn || null,
  });
  return hookAndLinkTask(asanaTasks, { ...opts, conn, token, task, created: true });
}

/** A task gid, or an Asana task address (app.asana.com/0/{project}/{task} or …/task/{task}). */
export function parseAsanaTaskRef(input: string) {
  const v = input.trim();
  if (isGid(v)) return v;
  const m = /^https:\/\/app\.asana\.com\/(?:0\/\d+\/(\d+)|.*\/task\/(\d+))(?:\/f)?\/?(?:[?#].*)?$/.exec(v);
  return m ? m[1] ?? m[2] : null;
}

export const linkAsanaTask = (opts: Who & { ref: string }) => linkExistingTask(asanaTasks, opts);

/** The panel: the linked tasks as last known; `refresh` reads them at Asana first. */
export async function asanaPanelFor(opts: { accountId: number; conversationId: number; refresh?: boolean }) {
  const p = await taskLinksPanel(asanaTasks, opts);
  if (!p) return { connected: false as const };
  const s = asanaSettings(p.conn.settings);
  return {
    connected: true as const,
    account: p.conn.externalAccount,
    workspaces: s.workspaces,
    defaultWorkspace: s.defaultWorkspace,
    defaultProject: s.defaultProject,
    reopenOnClose: s.reopenOnClose,
    links: p.links,
    error: p.error,
  };
}

export type AsanaPicker = { workspaces: { gid: string; name: string }[]; workspace: string; projects: { gid: string; name: string }[]; error: string | null };

/**
 * The project picker (ADR 118): the connection's workspaces and the chosen one's projects, read at Asana when the
 * page is shown. A failed read is said on the page; a project's ID typed by hand still works.
 */
export async function asanaProjectPicker(opts: { accountId: number; workspace: string | null }): Promise<AsanaPicker | null> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'asana' }).catch(() => null);
  if (!conn) return null;
  const s = asanaSettings(conn.settings);
  const workspace = opts.workspace && s.workspaces.some((w) => w.gid === opts.workspace) ? opts.workspace : s.defaultWorkspace;
  try {
    const projects = workspace ? await withToken(conn, (token) => listAsanaProjects(token, workspace)) : [];
    return { workspaces: s.workspaces, workspace, projects, error: null };
  } catch (err) {
    if (!(err instanceof IntegrationError)) throw err;
    return { workspaces: s.workspaces, workspace, projects: [], error: err.message };
  }
}

type AsanaEvent = { action?: string; resource?: { gid?: string; resource_type?: string }; change?: { field?: string }; user?: { gid?: string } | null };

/**
 * POST /webhooks/integrations/asana/{connectionId}/{taskGid}. First Asana's handshake (X-Hook-Secret, echoed back
 * only while Parley is creating that webhook); then event batches signed X-Hook-Signature with that secret. Asana's
 * events are compact, so a `completed` change is read back from the task: completed → a note on every linked
 * conversation (and a reopen where chosen); uncompleted → the link is open again. Forged or unknown: refused.
 */
export async function handleAsanaWebhook(opts: {
  connectionId: number;
  taskGid: string;
  rawBody: string;
  headers: Headers;
}): Promise<{ status: number; text: string; headers?: Record<string, string> }> {
  if (!isGid(opts.taskGid)) return { status: 404, text: 'Unknown hook' };
  const conn = await getOpenConnectionById({ id: opts.connectionId, provider: 'asana' }).catch(() => null);
  if (!conn) return { status: 404, text: 'Unknown hook' };
  const handshake = opts.headers.get('x-hook-secret');
  if (handshake !== null) {
    if (!(await acceptHandshake(conn, opts.taskGid, handshake))) return { status: 403, text: 'No webhook is being set up here' };
    return { status: 200, text: '', headers: { 'x-hook-secret': handshake } };
  }
  const hook = hookFor(conn, opts.taskGid);
  if (!hook) return { status: 404, text: 'Unknown hook' };
  if (!verifyAsanaSignature(opts.rawBody, opts.headers.get('x-hook-signature'), hook.secret)) return { status: 401, text: 'The signature does not match' };
  if (!(await integrationsInPlan(conn.accountId))) return PLAN_IGNORED;
  let payload: { events?: AsanaEvent[] };
  try {
    payload = JSON.parse(opts.rawBody);
  } catch {
    return { status: 400, text: 'The body is not JSON' };
  }
  const relevant = (payload.events ?? []).some((e) => e.resource?.gid === opts.taskGid && e.change?.field === 'completed');
  // An empty batch is Asana's heartbeat.
  if (!relevant) return { status: 200, text: 'nothing to do' };
  let task: AsanaTask;
  try {
    task = await withToken(conn, (token) => getAsanaTask(token, opts.taskGid));
  } catch (err) {
    if (!(err instanceof IntegrationError)) throw err;
    // Asana retries a delivery that is not answered 2xx.
    return { status: 503, text: 'The task could not be read at Asana' };
  }
  if (task.completed) {
    const n = await closeLinkedItem({
      accountId: conn.accountId,
      provider: 'asana',
      externalId: opts.taskGid,
      by: '',
      label: `Asana task "${task.name.slice(0, 200)}"`,
      verb: 'completed',
    });
    return { status: 200, text: `${n} conversation(s)` };
  }
  await reopenLinkedItem({ accountId: conn.accountId, provider: 'asana', externalId: opts.taskGid });
  return { status: 200, text: 'reopened' };
}
