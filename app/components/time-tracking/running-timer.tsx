import { useEffect, useState } from 'react';
import { formatHoursMinutes } from '~/utils/duration';

/** The elapsed time of a running timer: a static figure from the server, ticking each second with JavaScript. */
export function RunningTimer({ startedAt, serverSeconds }: { startedAt: string; serverSeconds: number }) {
  const [seconds, setSeconds] = useState(serverSeconds);
  useEffect(() => {
    const start = Date.parse(startedAt);
    const tick = () => setSeconds(Math.max(0, Math.floor((Date.now() - start) / 1000)));
    tick();
    const id = window.setInterval(tick, 1000);
    return () => window.clearInterval(id);
  }, [startedAt]);
  const s = seconds % 60;
  return (
    <span data-testid="running-timer" className="pill" role="timer" aria-live="off">
      {formatHoursMinutes(seconds)} {String(s).padStart(2, '0')}s
    </span>
  );
}
