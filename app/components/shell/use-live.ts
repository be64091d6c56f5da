import { useEffect, useState } from 'react';

export type LiveState = 'offline' | 'connecting' | 'online';

/** The shell's open socket, so that screens can speak too (presence); null while disconnected. */
let openSocket: WebSocket | null = null;

/** Sends a message over the live socket if it is open; false otherwise (screens re-send on the next 'hello'). */
export function sendLive(message: object) {
  if (!openSocket || openSocket.readyState !== WebSocket.OPEN) return false;
  openSocket.send(JSON.stringify(message));
  return true;
}

/**
 * Connects to `/ws` while the shell is shown and disconnects on exit. Messages are re-dispatched as
 * `parley:live` events on window, so any screen can listen without knowing about the socket.
 */
export function useLiveConnection() {
  const [state, setState] = useState<LiveState>('connecting');
  useEffect(() => {
    let ws: WebSocket | null = null;
    let closed = false;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      setState('connecting');
      ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
      ws.onopen = () => {
        attempt = 0;
        openSocket = ws;
        setState('online');
      };
      ws.onmessage = (e) => {
        try {
          window.dispatchEvent(new CustomEvent('parley:live', { detail: JSON.parse(e.data) }));
        } catch {
          /* not JSON: ignore */
        }
      };
      ws.onclose = () => {
        if (openSocket === ws) openSocket = null;
        setState('offline');
        if (closed) return;
        attempt += 1;
        timer = setTimeout(connect, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)));
      };
    };
    connect();
    return () => {
      closed = true;
      clearTimeout(timer);
      ws?.close();
    };
  }, []);
  return state;
}

export function useLiveEvent(handler: (message: { type: string; [k: string]: unknown }) => void) {
  useEffect(() => {
    const listener = (e: Event) => handler((e as CustomEvent).detail);
    window.addEventListener('parley:live', listener);
    return () => window.removeEventListener('parley:live', listener);
  }, [handler]);
}
