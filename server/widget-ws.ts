import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { getSql } from '../db/client';
import { LIVE_CHANNEL } from '../app/utils/live.server';
import { metrics } from '../app/utils/metrics.server';
import { getLogger } from '../app/utils/logger.server';
import { isHostAllowed, readMessengerSettings } from '../app/models/channels/messenger-settings';
import { setWidgetPush } from '../app/models/chatbots/widget-push.server';
import { planAllows } from '../app/models/plans/enforce.server';
import { FEATURE_DENIED_MESSAGE } from '../app/models/plans/catalogue';
import { markVisitorPresence, publishVisitorTyping, visitorFromToken, visitorMessage, visitorsOfConversation, type WidgetVisitor } from '../app/models/channels/widget.server';

export const WIDGET_WS_PATH = '/widget/ws';
/** The close code of a visitor socket whose account's plan has no messenger (ADR 157); the reason is the plan message. */
export const PLAN_CLOSE_CODE = 4403;

type Visitor = { ws: WebSocket; accountId: number; visitorId: string };
type UpgradeListener = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The visitors' live channel, apart from the agents' (/ws, server/ws.ts): `/widget/ws?token=…` on the same port,
 * authenticated by the signed visitor token (any origin: the widget runs on customers' sites). It hears the same
 * NOTIFY fan-out as the agents' socket and passes on only what concerns the visitor's own conversation, read again
 * from the database scoped by the token's account: agents' replies and "an agent is typing".
 *
 * Upgrades are routed by path before other listeners see them, so that the agents' socket (which refuses any path
 * but its own) never meets a visitor's request.
 */
export async function startWidgetSocket(server: http.Server) {
  const log = getLogger();
  const visitors = new Set<Visitor>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 });

  const others = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WIDGET_WS_PATH) {
      for (const listener of others) listener.call(server, req, socket, head);
      return;
    }
    void accept(req, socket, head, url.searchParams.get('token'));
  });

  async function accept(req: http.IncomingMessage, socket: Duplex, head: Buffer, token: string | null) {
    try {
      const found = await visitorFromToken(token);
      if (!found) {
        socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
        return socket.destroy();
      }
      if (!isHostAllowed(readMessengerSettings(found.inbox.settings).advanced, req.headers.origin ?? null)) {
        socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
        return socket.destroy();
      }
      const { visitor } = found;
      // Without the messenger in the plan (ADR 157) the socket opens only to be closed with the plan's message: a
      // browser shows a script nothing of a refused upgrade, a close code and reason it can read.
      if (!(await planAllows({ accountId: visitor.accountId, key: 'chatMessenger/enabled' }))) {
        return wss.handleUpgrade(req, socket, head, (ws) => ws.close(PLAN_CLOSE_CODE, FEATURE_DENIED_MESSAGE));
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const client: Visitor = { ws, accountId: visitor.accountId, visitorId: visitor.id };
        visitors.add(client);
        metrics().websockets.inc({ kind: 'widget' });
        let typingAt = 0;
        ws.on('message', async (raw) => {
          const text = raw.toString();
          if (text === 'ping') return ws.send('{"type":"pong"}');
          let msg: { type?: unknown; typing?: unknown };
          try {
            msg = JSON.parse(text);
          } catch {
            return;
          }
          if (msg?.type !== 'typing' || typeof msg.typing !== 'boolean') return;
          // At most one typing signal a second reaches the agents.
          if (msg.typing) {
            if (Date.now() - typingAt < 1000) return;
            typingAt = Date.now();
          }
          const fresh = await visitorFromToken(token).catch(() => undefined);
          if (fresh) await publishVisitorTyping({ visitor: fresh.visitor as WidgetVisitor, typing: msg.typing }).catch(() => {});
        });
        // Presence (ADR 033): a reply to a present visitor is delivered in the widget; one to a visitor gone waits, then emails.
        const present = (on: boolean) =>
          markVisitorPresence({ accountId: visitor.accountId, visitorId: visitor.id, present: on }).catch((err) =>
            log.warn({ err: (err as Error).message }, 'visitor presence not recorded'),
          );
        void present(true);
        ws.on('pong', () => void present(true));
        let dropped = false;
        const drop = () => {
          if (dropped) return;
          dropped = true;
          visitors.delete(client);
          metrics().websockets.dec({ kind: 'widget' });
          if (![...visitors].some((v) => v.visitorId === client.visitorId && v.accountId === client.accountId)) void present(false);
        };
        ws.on('close', drop);
        ws.on('error', drop);
      });
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'widget websocket upgrade failed');
      socket.destroy();
    }
  }

  /**
   * Which sockets already have a message (ADR 124): a bot's reply is pushed in-process when its turn commits, and its
   * NOTIFY arrives too; whichever comes second skips those sockets. Entries go after a minute (an edit, sent
   * again as message.updated, is never skipped); a closed socket is not kept alive by them.
   */
  const delivered = new Map<number, { at: number; sockets: WeakSet<WebSocket> }>();
  const firstTime = (messageId: number, ws: WebSocket) => {
    const now = Date.now();
    if (delivered.size > 5000) for (const [id, d] of delivered) if (d.at < now - 60_000) delivered.delete(id);
    let entry = delivered.get(messageId);
    if (!entry) delivered.set(messageId, (entry = { at: now, sockets: new WeakSet() }));
    if (entry.sockets.has(ws)) return false;
    entry.sockets.add(ws);
    return true;
  };
  setWidgetPush(({ accountId, visitorId, messages }) => {
    for (const v of visitors) {
      if (v.accountId !== accountId || v.visitorId !== visitorId || v.ws.readyState !== v.ws.OPEN) continue;
      for (const m of messages) if (firstTime(m.id, v.ws)) v.ws.send(JSON.stringify({ type: 'message', message: m }));
    }
  });

  async function fanOut(
    accountId: number,
    message: { type?: string; conversationId?: number; messageId?: number; kind?: string; who?: string; typing?: boolean; name?: string; edited?: boolean },
  ) {
    const conversationId = Number(message.conversationId);
    if (!Number.isSafeInteger(conversationId)) return;
    // An edit (message.updated) is sent again: the widget replaces the bubble it shows.
    const isMessage =
      (message.type === 'message.created' && (message.kind === 'outgoing' || message.kind === 'incoming')) ||
      (message.type === 'message.updated' && message.edited === true);
    const isAgentTyping = message.type === 'widget.typing' && message.who === 'agent';
    if (!isMessage && !isAgentTyping) return;
    const mine = [...visitors].filter((v) => v.accountId === accountId);
    if (mine.length === 0) return;
    const ids = new Set(await visitorsOfConversation({ accountId, conversationId }));
    const targets = mine.filter((v) => ids.has(v.visitorId));
    if (targets.length === 0) return;
    let text: string;
    if (isMessage) {
      const m = await visitorMessage({ accountId, conversationId, messageId: Number(message.messageId) });
      if (!m) return;
      text = JSON.stringify({ type: 'message', message: m });
    } else {
      text = JSON.stringify({ type: 'typing', typing: Boolean(message.typing), name: typeof message.name === 'string' ? message.name.split(' ')[0] : null });
    }
    const created = message.type === 'message.created' ? Number(message.messageId) : null;
    for (const v of targets) if (v.ws.readyState === v.ws.OPEN && (created === null || firstTime(created, v.ws))) v.ws.send(text);
  }

  const listener = await getSql().listen(LIVE_CHANNEL, (payload) => {
    if (visitors.size === 0) return;
    let parsed: { accountId: number; userId: number | null; message: Record<string, unknown> };
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (parsed.userId) return;
    deliver(parsed.accountId, parsed.message, 0);
  });

  /**
   * A fan-out reads the database twice; a read that fails (a pool connection reset while it opened) would lose the
   * visitor's live copy of the message, so it is tried once more a moment later. A message is still sent to a
   * socket at most once (`firstTime`); only a second failure is given up and logged.
   */
  function deliver(accountId: number, message: Parameters<typeof fanOut>[1], attempt: number) {
    fanOut(accountId, message).catch((err) => {
      if (attempt === 0) return void setTimeout(() => deliver(accountId, message, 1), 200).unref();
      log.warn({ err: (err as Error).message }, 'widget fan-out failed');
    });
  }

  const pingTimer = setInterval(() => {
    for (const v of visitors) if (v.ws.readyState === v.ws.OPEN) v.ws.ping();
  }, 30_000);
  pingTimer.unref();

  return {
    visitorCount: () => visitors.size,
    async close() {
      clearInterval(pingTimer);
      for (const v of visitors) v.ws.close(1001, 'server shutting down');
      wss.close();
      setWidgetPush(undefined);
      await listener.unlisten();
    },
  };
}
