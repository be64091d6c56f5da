import { freshAccessToken, getOpenConnection, type OAuthAdapter, type OpenConnection } from './connections.server';
import { IntegrationError } from './http.server';
import { listConversationLinks, refreshLinkStatuses, saveConversationLink } from './links.server';

/**
 * What Asana and ClickUp tasks have in common (ADR 100, 118): read a task, hook it, link it to a conversation, and
 * the panel's links with "Refresh status". Each provider gives its own calls as a TaskSource; the steps are here once.
 */
export type TaskView = { id: string; title: string; url: string; status: 'open' | 'closed' };

export type TaskSource<T> = {
  provider: 'asana' | 'clickup';
  label: string;
  adapter: OAuthAdapter;
  /** A task's id from what the agent typed (its id or its address), or null. */
  parseRef: (ref: string) => string | null;
  get: (token: string, id: string) => Promise<T>;
  view: (task: T) => TaskView;
  /** Makes sure the provider tells Parley when the task closes. */
  hook: (conn: OpenConnection, token: string, task: T, publicBase: string) => Promise<void>;
  /** Runs a call with a fresh token (Asana also refreshes once on a 401); by default the token as the base keeps it. */
  withToken?: <R>(conn: OpenConnection, fn: (token: string) => Promise<R>) => Promise<R>;
};

type Who = { accountId: number; userId: number; conversationId: number; reopenOnClose: boolean; publicBase: string };

/** The account's connection and a token valid now; "not connected" otherwise. */
export async function connectedTaskProvider<T>(source: TaskSource<T>, accountId: number) {
  const conn = await getOpenConnection({ accountId, provider: source.provider });
  if (!conn) throw new IntegrationError(`${source.label} is not connected`, 0);
  return { conn, token: await freshAccessToken(conn, source.adapter) };
}

/** After a task was created or read: hooked, then linked (a system line and `integration_item_linked`). */
export async function hookAndLinkTask<T>(source: TaskSource<T>, opts: Who & { conn: OpenConnection; token: string; task: T; created: boolean }) {
  await source.hook(opts.conn, opts.token, opts.task, opts.publicBase);
  const v = source.view(opts.task);
  await saveConversationLink({ ...opts, provider: source.provider, externalId: v.id, title: v.title, url: v.url, status: v.status, created: opts.created });
  return opts.task;
}

/** Links an existing task, given as its id or its address, to the conversation. */
export async function linkExistingTask<T>(source: TaskSource<T>, opts: Who & { ref: string }) {
  const id = source.parseRef(opts.ref);
  if (!id) throw new IntegrationError(`Enter a task as its ID or its ${source.label} address`, 400);
  const { conn, token } = await connectedTaskProvider(source, opts.accountId);
  const task = await source.get(token, id);
  return hookAndLinkTask(source, { ...opts, conn, token, task, created: false });
}

/** The panel's part: the conversation's links as last known (read again at the provider with `refresh`), or null when not connected. */
export async function taskLinksPanel<T>(source: TaskSource<T>, opts: { accountId: number; conversationId: number; refresh?: boolean }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: source.provider }).catch(() => null);
  if (!conn) return null;
  const links = await listConversationLinks({ ...opts, provider: source.provider });
  const call = source.withToken ?? (async <R>(c: OpenConnection, fn: (token: string) => Promise<R>) => fn(await freshAccessToken(c, source.adapter)));
  const error =
    opts.refresh && links.length
      ? await refreshLinkStatuses({
          accountId: opts.accountId,
          links,
          read: async (id) => {
            const v = source.view(await call(conn, (token) => source.get(token, id)));
            return { status: v.status, title: v.title };
          },
          isProviderError: (e): e is IntegrationError => e instanceof IntegrationError,
        })
      : null;
  return { conn, links, error };
}
