import crypto from 'node:crypto';
import type http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { getSql } from '../db/client';
import { getAppContext } from '../app/utils/session.server';
import { LIVE_CHANNEL } from '../app/utils/live.server';
import { metrics } from '../app/utils/metrics.server';
import { getLogger } from '../app/utils/logger.server';
import { leaveConversation, readPresenceMessage, refreshViewers, resetViewers, sweepViewers, viewConversation } from '../app/models/inbox/presence.server';
import { conversationTopic, INBOX_TOPIC, topicsOf, type CountFilters } from '../app/models/inbox/live-list';
import { createInboxFeed, readWatchMessage } from './live-inbox';
import {
  agentConnected,
  agentDisconnected,
  PRESENCE_HEARTBEAT_MS,
  PRESENCE_SWEEP_MS,
  refreshPresence,
  resetStalePresence,
  sweepPresence,
} from '../app/models/automation/presence.server';
import { everyOnOneNode } from '../app/models/cluster/leases.server';
import { nodeId as thisNodeId } from '../app/models/cluster/node.server';

/** How recent a topic's news must be for a page that starts watching it to reload once (its loader may predate it). */
const MISSED_WINDOW_MS = 10_000;

type Client = {
  ws: WebSocket;
  accountId: number;
  userId: number;
  /** This socket among the node's (its conversation_viewers row is node id + connection id). */
  connectionId: string;
  /** What this socket's page watches (ADR 045): `inbox`, `conversation:N`, `liveview`, `import:N`. */
  topics: Set<string>;
  inboxFilters?: CountFilters;
  connected?: Promise<unknown>;
  released?: Promise<unknown>;
  /** The socket's presence writes, one after another, in the order its page sent them. */
  viewing: Promise<unknown>;
  closed?: boolean;
};

/**
 * The live channel: `/ws` on the same port, authenticated by the session cookie of the account host it is
 * opened on. Messages published with NOTIFY reach only the clients of the account they name, and of those only
 * the ones whose page watches what the message is about (ADR 045): a conversation's messages its viewers, list
 * changes the agents with the inbox list open, as one coalesced `inbox.patch` carrying the changed rows.
 *
 * Presence is the cluster's, not this process's (house rule 15): who views a conversation and which agents are online
 * live in PostgreSQL, in rows named by this node (`nodeId`), refreshed every heartbeat; one node at a time sweeps the
 * rows of nodes that died. Tests stand two nodes in one process by giving each its own `nodeId`.
 */
export async function startLiveServer(server: http.Server, opts: { nodeId?: string; heartbeatMs?: number; sweepMs?: number } = {}) {
  const log = getLogger();
  const node = opts.nodeId ?? thisNodeId();
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
  const sockets = metrics().websockets;
  const forget = (client: Client) => {
    if (clients.delete(client)) sockets.dec({ kind: 'agent' });
    byAccount.get(client.accountId)?.delete(client);
    if (byAccount.get(client.accountId)?.size === 0) byAccount.delete(client.accountId);
  };

  // Conversation viewers (conversation_viewers rows): the change reaches every node's viewers as a `presence` message.
  const viewersFailed = (err: unknown) => log.warn({ err: (err as Error).message }, 'conversation presence update failed');
  const inTurn = (client: Client, write: () => Promise<unknown>) => {
    client.viewing = client.viewing.then(write).catch(viewersFailed);
    return client.viewing;
  };
  const connection = (client: Client) => ({ nodeId: node, connectionId: client.connectionId });
  const dropConversationTopics = (client: Client) => {
    for (const t of client.topics) if (t.startsWith('conversation:')) client.topics.delete(t);
  };
  const leave = (client: Client) => {
    dropConversationTopics(client);
    return inTurn(client, () => leaveConversation({ accountId: client.accountId, connection: connection(client) }));
  };

  // Agent presence for routing (agent_presence rows): counted up when a socket opens, down once when it ends.
  const presenceFailed = (err: unknown) => log.warn({ err: (err as Error).message }, 'agent presence update failed');
  // Only the stale rows of this node's earlier lives: another live node's rows are its own business.
  await resetStalePresence({ nodeId: node }).catch(presenceFailed);
  await resetViewers({ nodeId: node, staleOnly: true }).catch(viewersFailed);
  const release = (client: Client) => {
    client.released ??= (client.connected ?? Promise.resolve())
      .then(() => agentDisconnected({ accountId: client.accountId, userId: client.userId, nodeId: node }))
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
          connectionId: crypto.randomUUID(),
          topics: new Set(),
          viewing: Promise.resolve(),
        };
        clients.add(client);
        sockets.inc({ kind: 'agent' });
        if (!byAccount.has(client.accountId)) byAccount.set(client.accountId, new Set());
        byAccount.get(client.accountId)!.add(client);
        client.connected = agentConnected({ accountId: client.accountId, userId: client.userId, nodeId: node }).catch(presenceFailed);
        ws.send(JSON.stringify({ type: 'hello', userId: ctx.user.id }));
        ws.on('message', (raw) => {
          const text = raw.toString();
          if (text === 'ping') return ws.send(JSON.stringify({ type: 'pong' }));
          // Presence: "I am viewing conversation N" / "I left"; who it is comes from the session, never the client.
          const msg = readPresenceMessage(text);
          if (msg?.type === 'viewing') {
            dropConversationTopics(client);
            client.topics.add(conversationTopic(msg.conversationId));
            catchUp(client, conversationTopic(msg.conversationId));
            const conversationId = msg.conversationId;
            void inTurn(client, () => viewConversation({ accountId: client.accountId, userId: client.userId, conversationId, connection: connection(client) }));
            return;
          } else if (msg?.type === 'left') return void leave(client);
          // What the page shows, so that only what concerns it is sent (ADR 045).
          const watch = readWatchMessage(text);
          if (watch?.type === 'watch') {
            client.topics.add(watch.topic);
            if (watch.filters) client.inboxFilters = watch.filters;
            catchUp(client, watch.topic);
          } else if (watch?.type === 'unwatch') client.topics.delete(watch.topic);
        });
        const closed = () => {
          if (client.closed) return;
          client.closed = true;
          forget(client);
          void leave(client);
          void release(client);
        };
        ws.on('close', closed);
        ws.on('error', closed);
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
    // Who views a conversation is not news about it: a page starting to watch it must not reload for it.
    if (message.type === 'presence' && typeof message.conversationId === 'number') {
      for (const c of watching(parsed.accountId, conversationTopic(message.conversationId))) send(c, text);
      return;
    }
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

  // The presence heartbeat: this node's rows stay fresh; a dead node's rows go stale and stop counting.
  const heartbeatTimer = setInterval(() => {
    refreshPresence({ nodeId: node }).catch(presenceFailed);
    refreshViewers({ nodeId: node }).catch(viewersFailed);
  }, opts.heartbeatMs ?? PRESENCE_HEARTBEAT_MS);
  heartbeatTimer.unref();
  // One node at a time (the holder of the presence:sweep lease) announces offline the agents whose nodes died and
  // removes their viewers.
  const sweeper = everyOnOneNode({
    key: 'presence:sweep',
    everyMs: opts.sweepMs ?? PRESENCE_SWEEP_MS,
    holder: node,
    run: async () => {
      await sweepPresence();
      await sweepViewers();
    },
    onError: (err) => log.warn({ err: (err as Error).message }, 'presence sweep failed'),
  });

  return {
    clientCount: () => clients.size,
    feedStats: feed.stats,
    nodeId: node,
    async close() {
      clearInterval(pingTimer);
      clearInterval(heartbeatTimer);
      await sweeper.stop();
      // This node's viewers leave at once (the other nodes' viewers are told), rather than at the TTL.
      const open = [...clients];
      const left = open.map((c) => {
        c.closed = true;
        forget(c);
        return Promise.all([leave(c), release(c)]);
      });
      for (const c of open) c.ws.close(1001, 'server shutting down');
      await Promise.all(left);
      wss.close();
      await listener.unlisten();
    },
  };
}
