import { useEffect, useRef, useState } from 'react';

/** One ping per this many milliseconds of activity at most; the server's idle clock starts from the last ping. */
const PING_EVERY_MS = 20_000;
const WARN_BEFORE_MS = 60_000;
const STORAGE_KEY = 'parley:last-ping';
const ACTIVITY_EVENTS = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'scroll', 'mousemove'] as const;

/**
 * Idle sign-out, improved by JavaScript (ADR 148). The server ends a session on its own once the account's idle
 * time has passed since the last activity it saw; this module tells the server while the user is active (pings),
 * shares that across tabs, warns a minute before the end with "Stay signed in", and at the end reloads the page,
 * which the server answers with the sign-in page.
 */
export function IdleSignOut({ idleMs }: { idleMs: number }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [secondsLeft, setSecondsLeft] = useState<number | null>(null);
  const stay = useRef<() => void>(() => {});

  useEffect(() => {
    if (!idleMs) return;
    let lastPing = 0;
    let warning = false;
    const shared = () => {
      try {
        return Number(window.localStorage.getItem(STORAGE_KEY)) || 0;
      } catch {
        return 0;
      }
    };
    const deadline = () => Math.max(lastPing, shared()) + idleMs;
    const ping = async () => {
      lastPing = Date.now();
      try {
        window.localStorage.setItem(STORAGE_KEY, String(lastPing));
      } catch {
        // Private windows may refuse storage: this tab still keeps its own clock.
      }
      try {
        const res = await fetch('/session/keep-alive', { method: 'POST', credentials: 'same-origin', redirect: 'manual' });
        if (!res.ok) window.location.reload();
      } catch {
        // Offline for a moment: the next activity pings again.
      }
    };
    const onActivity = () => {
      // While the warning is shown, only its button keeps the session.
      if (warning) return;
      if (Date.now() - Math.max(lastPing, shared()) > PING_EVERY_MS) void ping();
    };
    stay.current = () => {
      warning = false;
      setSecondsLeft(null);
      dialog.current?.close();
      void ping();
    };
    const tick = () => {
      const left = deadline() - Date.now();
      if (left <= 0) {
        window.clearInterval(timer);
        window.location.reload();
        return;
      }
      if (left <= WARN_BEFORE_MS) {
        if (!warning) {
          warning = true;
          if (dialog.current && !dialog.current.open) dialog.current.showModal();
        }
        setSecondsLeft(Math.ceil(left / 1000));
      } else if (warning) {
        // Another tab was active: the end moved away.
        warning = false;
        setSecondsLeft(null);
        dialog.current?.close();
      }
    };
    void ping();
    for (const e of ACTIVITY_EVENTS) window.addEventListener(e, onActivity, { passive: true });
    const timer = window.setInterval(tick, 1000);
    return () => {
      window.clearInterval(timer);
      for (const e of ACTIVITY_EVENTS) window.removeEventListener(e, onActivity);
    };
  }, [idleMs]);

  if (!idleMs) return null;
  return (
    <dialog ref={dialog} className="idle-warning" aria-labelledby="idle-warning-title" data-testid="idle-warning" onCancel={(e) => e.preventDefault()}>
      <h2 id="idle-warning-title">Still there?</h2>
      <p role="timer" aria-live="polite">
        You will be signed out in {secondsLeft ?? 60} s
      </p>
      <div className="dialog-actions">
        <button type="button" className="btn btn-primary" onClick={() => stay.current()} autoFocus>
          Stay signed in
        </button>
      </div>
    </dialog>
  );
}
