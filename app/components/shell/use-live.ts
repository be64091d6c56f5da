import { useNavigation, useRevalidator } from '@remix-run/react';
import { useCallback, useEffect, useRef, useState } from 'react';

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

type LiveMessage = { type: string; [k: string]: unknown };

/**
 * Set while a reload asked for by a live message is being planned: the shell's and the root's `shouldRevalidate`
 * then skip their loaders, so a live reload runs only the screen's own loader (ADR 045).
 */
let liveReload = false;
export function isLiveRevalidation() {
  return liveReload;
}

/**
 * Tells the server what this page watches (ADR 045), again after every reconnection (the server's 'hello'), and
 * that it stopped when the page goes. Only messages about watched topics reach this socket.
 */
export function useLiveWatch(topic: string, filters?: object) {
  const key = JSON.stringify(filters ?? null);
  useEffect(() => {
    const watch = () => sendLive({ type: 'watch', topic, ...(filters ? { filters } : {}) });
    watch();
    const listener = (e: Event) => {
      if ((e as CustomEvent).detail?.type === 'hello') watch();
    };
    window.addEventListener('parley:live', listener);
    return () => {
      window.removeEventListener('parley:live', listener);
      sendLive({ type: 'unwatch', topic });
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [topic, key]);
}

/**
 * The one way a screen follows live changes: reloads its data when a message concerns it, and once after
 * every (re)connection (the server's 'hello'), so nothing published before the socket opened is missed, and when
 * the server says news came just before this page started watching ('missed').
 * Bursts (a mass action touches 50 conversations) become one reload. While a navigation or a reload is under
 * way (the agent's own post and its redirect) the reload waits for it instead of interrupting it, which would
 * drop that page's flash toast; a message arriving meanwhile is never dropped.
 */
export function useLiveRevalidation(concerns: (m: LiveMessage) => boolean, opts: { minIntervalMs?: number } = {}) {
  const reload = useLiveReload(opts);
  const concernsRef = useRef(concerns);
  concernsRef.current = concerns;
  useLiveEvent(
    useCallback(
      (m: LiveMessage) => {
        if (m.type === 'hello' || m.type === 'missed' || concernsRef.current(m)) reload();
      },
      [reload],
    ),
  );
}

/**
 * A reload of the screen's own loader (not the shell's), for live changes a screen cannot patch in place: bursts
 * become one reload (and at most one per `minIntervalMs`), and it waits for a navigation or reload under way.
 */
export function useLiveReload(opts: { minIntervalMs?: number } = {}) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' || revalidator.state !== 'idle';
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const pending = useRef(false);
  const lastAt = useRef(0);
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  const minInterval = opts.minIntervalMs ?? 0;

  const run = useCallback(() => {
    lastAt.current = Date.now();
    liveReload = true;
    revalidate.current();
    setTimeout(() => {
      liveReload = false;
    }, 0);
  }, []);
  useEffect(() => {
    // The router has chosen the loaders to run by the time it reports a reload or navigation under way.
    if (busy) liveReload = false;
    if (!busy && pending.current) {
      pending.current = false;
      run();
    }
  }, [busy, run]);
  useEffect(() => () => clearTimeout(timer.current), []);

  return useCallback(() => {
    clearTimeout(timer.current);
    const wait = Math.max(150, lastAt.current + minInterval - Date.now());
    timer.current = setTimeout(() => {
      if (busyRef.current) pending.current = true;
      else run();
    }, wait);
  }, [minInterval, run]);
}
