import { singleton } from '../../utils/singleton.server';
import type { VisitorMessage } from '../channels/widget.server';

/**
 * A bot's reply straight to the visitor's widget socket (ADR 124). The bot's turn runs in the visitor's request, in
 * the process whose widget socket server holds that visitor's sockets (server/widget-ws.ts registers itself here).
 * Once the turn has committed, its messages (built from the rows it wrote, no read) go to this visitor's sockets at
 * once, instead of going round through the NOTIFY and the socket server's two reads. The NOTIFY still goes out as
 * before: other processes' sockets and the conversation's other visitors get the message from it, and the socket
 * server skips the sockets that already have it.
 */
export type WidgetPush = (opts: { accountId: number; visitorId: string; conversationId: number; messages: VisitorMessage[] }) => void;

const state = singleton('widget-push', () => ({ push: undefined as WidgetPush | undefined }));

export function setWidgetPush(push: WidgetPush | undefined) {
  state.push = push;
}

/** Pushes what a committed bot turn said; nothing when this process has no widget socket server (tests, CLI). */
export function pushToWidget(opts: Parameters<WidgetPush>[0]) {
  if (opts.messages.length) state.push?.(opts);
}
