import type http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { getSql } from '../db/client';
import { getAppContext } from '../app/utils/session.server';
import { LIVE_CHANNEL } from '../app/utils/live.server';
import { getLogger } from '../app/utils/logger.server';
import { PresenceBoard, readPresenceMessage } from '../app/models/inbox/presence.server';
import { conversationTopic, INBOX_TOPIC, topicsOf, type CountFilters } from '../app/models/inbox/live-list';
import { createInboxFeed, readWatchMessage } from './live-inbox';
import { agentConnected, agentDisconnected, PRESENCE_HEARTBEAT_MS, refreshPresence, resetStalePresence } from '../app/models/automation/presence.server';

/** How recent a topic's news must be for a page that starts watching it to reload once (its loader may predate it). */
const MISSED_WINDOW_MS = 10_000;

type Client = {
  ws: WebSocket;
  accountId: number;
  userId: number;
  name: string;
  /** What this socket's page watches (ADR 045): `inbox`, `conversation:N`, `liveview`, `import:N`. */
  topics: Set<string>;
  inboxFilters?: CountFilters;
  connected?: Promise<unknown>;
  released?: Promise<unknown>;
};

/**
 * The live channel: `/ws` on the same port, authenticated by the session cookie of the account host it is
 * opened on. Messages published with NOTIFY reach only the clients of the account they name, and of those only
 * the ones whose page watches what the message is about (ADR 045): a conversation's messages its viewers, list
 * changes the agents with the inbox list open, as one coalesced `inbox.patch` carrying the changed rows.
 */
export async function startLiveServer(server: http.Server) {
  const log = getLogger();
  const clients = new Set<Client>();
  const byAccount = new Map<number, Set<Client>>();
  // When each account's topic last had news: a page that starts watching just after (its loader ran before the
  // watch reached us) is told it may have missed something and reloads once (ADR 045 addendum).
  const lastNews = new Map<string, number>();
  const newsKey = (accountId: number, topic: string) => `${accountId}|${topic}`;
  function catchUp(client: Client, topic: string) {
    const at = lastNews.get(newsKey(client.accountId, topic));
    if (at !== undefined && Date.now() - at < MISSED_WINDOW_MS) send(client, JSON.stringify({ type: 'missed', topic }));
  }
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const presence = new PresenceBoard<Client>();
  const send = (c: Client, text: string) => {
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(text);
  };
  function* watching(accountId: number, topic: string) {
    for (const c of byAccount.get(accountId) ?? []) if (c.topics.has(topic)) yield c;
  }
  const feed = createInboxFeed({
    watchersOf: function* (accountId) {
      for (const c of watching(accountId, INBOX_TOPIC)) yield { userId: c.userId, filters: c.inboxFilters ?? {}, send: (text) => send(c, text) };
    },
    onError: (err) => log.warn({ err: (err as Error).message }, 'inbox live feed failed'),
  });
  const forget = (client: Client) => {
    clients.delete(client);
    byAccount.get(client.accountId)?.delete(client);
    if (byAccount.get(client.accountId)?.size === 0) byAccount.delete(client.accountId);
  };

  /** Tells the viewers of each of these conversations (and only them) who views it now. */
  const broadcastPresence = (accountId: number, conversationIds: number[]) => {
    for (const conversationId of new Set(conversationIds)) {
      const text = JSON.stringify({ type: 'presence', conversationId, users: presence.usersOf(accountId, conversationId) });
      for (const c of watching(accountId, conversationTopic(conversationId))) send(c, text);
    }
  };
  const dropConversationTopics = (client: Client) => {
    for (const t of client.topics) if (t.startsWith('conversation:')) client.topics.delete(t);
  };
  const leave = (client: Client) => {
    dropConversationTopics(client);
    broadcastPresence(client.accountId, presence.leave(client));
  };

  // Agent presence for routing (agent_presence rows): counted up when a socket opens, down once when it ends.
  const presenceFailed = (err: unknown) => log.warn({ err: (err as Error).message }, 'agent presence update failed');
  await resetStalePresence().catch(presenceFailed);
  const release = (client: Client) => {
    client.released ??= (client.connected ?? Promise.resolve())
      .then(() => agentDisconnected({ accountId: client.accountId, userId: client.userId }))
      .catch(presenceFailed);
    return client.released;
  };

  server.on('upgrade', async (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== '/ws') return socket.destroy();
    try {
      const request = new Request(`http://${req.headers.host}${req.url}`, { headers: { cookie: req.headers.cookie ?? '' } });
      const ctx = await getAppContext(request).catch(() => null);
      const origin = req.headers.origin;
      if (!ctx || (origin && new URL(origin).host !== req.headers.host)) {
        socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
        return socket.destroy();
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const client: Client = {
          ws,
          accountId: ctx.account.id,
          userId: ctx.user.id,
          name: `${ctx.user.firstName} ${ctx.user.lastName}`.trim(),
          topics: new Set(),
        };
        clients.add(client);
        if (!byAccount.has(client.accountId)) byAccount.set(client.accountId, new Set());
        byAccount.get(client.accountId)!.add(client);
        client.connected = agentConnected({ accountId: client.accountId, userId: client.userId }).catch(presenceFailed);
        ws.send(JSON.stringify({ type: 'hello', userId: ctx.user.id }));
        ws.on('message', (raw) => {
          const text = raw.toString();
          if (text === 'ping') return ws.send(JSON.stringify({ type: 'pong' }));
          // Presence: "I am viewing conversation N" / "I left"; the names come from the session, never the client.
          const msg = readPresenceMessage(text);
          if (msg?.type === 'viewing') {
            dropConversationTopics(client);
            client.topics.add(conversationTopic(msg.conversationId));
            catchUp(client, conversationTopic(msg.conversationId));
            broadcastPresence(
              client.accountId,
              presence.view(client, { accountId: client.accountId, userId: client.userId, name: client.name }, msg.conversationId),
            );
            return;
          } else if (msg?.type === 'left') return leave(client);
          // What the page shows, so that only what concerns it is sent (ADR 045).
          const watch = readWatchMessage(text);
          if (watch?.type === 'watch') {
            client.topics.add(watch.topic);
            if (watch.filters) client.inboxFilters = watch.filters;
            catchUp(client, watch.topic);
          } else if (watch?.type === 'unwatch') client.topics.delete(watch.topic);
        });
        ws.on('close', () => {
          forget(client);
          leave(client);
          void release(client);
        });
        ws.on('error', () => {
          forget(client);
          leave(client);
          void release(client);
        });
      });
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'websocket upgrade failed');
      socket.destroy();
    }
  });

  const listener = await getSql().listen(LIVE_CHANNEL, (payload) => {
    let parsed: { accountId: number; userId: number | null; message: unknown };
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    const account = byAccount.get(parsed.accountId);
    if (!account) return;
    const message = parsed.message as { type: string; conversationId?: unknown };
    const text = JSON.stringify(message);
    const topics = parsed.userId ? null : topicsOf(message);
    if (!topics) {
      // Addressed to one user (notifications), or to the whole account (anything without a topic).
      for (const c of account) if (!parsed.userId || c.userId === parsed.userId) send(c, text);
      return;
    }
    for (const topic of topics) {
      lastNews.set(newsKey(parsed.accountId, topic), Date.now());
      // The inbox list is patched from the row itself, read once for all its watchers.
      if (topic === INBOX_TOPIC) feed.changed(parsed.accountId, message.conversationId as number);
      else for (const c of watching(parsed.accountId, topic)) send(c, text);
    }
  });

  const pingTimer = setInterval(() => {
    for (const c of clients) if (c.ws.readyState === c.ws.OPEN) c.ws.ping();
    for (const [key, at] of lastNews) if (Date.now() - at >= MISSED_WINDOW_MS) lastNews.delete(key);
  }, 30_000);
  pingTimer.unref();

  // The presence heartbeat: rows of agents still connected here stay fresh; a dead process's rows go stale.
  const heartbeatTimer = setInterval(() => {
    const byAccount = new Map<number, number[]>();
    for (const c of clients) byAccount.set(c.accountId, [...(byAccount.get(c.accountId) ?? []), c.userId]);
    for (const [accountId, userIds] of byAccount) refreshPresence({ accountId, userIds: [...new Set(userIds)] }).catch(presenceFailed);
  }, PRESENCE_HEARTBEAT_MS);
  heartbeatTimer.unref();

  return {
    clientCount: () => clients.size,
    feedStats: feed.stats,
    async close() {
      clearInterval(pingTimer);
      clearInterval(heartbeatTimer);
      const released = [...clients].map(release);
      for (const c of clients) c.ws.close(1001, 'server shutting down');
      await Promise.all(released);
      wss.close();
      await listener.unlisten();
    },
  };
}
