import { Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import { formatDateTime, type DatePrefs } from '~/utils/format';

export type HealthRow = {
  part: string;
  label: string;
  lastSuccessAt: Date | string | null;
  lastError: string | null;
  lastErrorAt: Date | string | null;
  failingSince: Date | string | null;
};

/** A channel's parts and how they are doing (ADR 024): working since, or failing since when and why. */
export function ChannelHealthPanel({ rows, prefs, children }: { rows: HealthRow[]; prefs: DatePrefs; children?: ReactNode }) {
  return (
    <section className="settings-page" aria-labelledby="health-title" data-testid="channel-health">
      <header>
        <h2 id="health-title">Connection</h2>
      </header>
      <div className="card stack">
        {rows.length === 0 ? <p className="muted">Not checked yet: Parley records here when it last reached this channel, and any error.</p> : null}
        {rows.map((r) => (
          <div key={r.part} data-testid={`health-${r.part}`}>
            <strong>{r.label}</strong>{' '}
            {r.failingSince ? (
              <span className="pill pill-off">Failing since {formatDateTime(r.failingSince, prefs)}</span>
            ) : (
              <span className="pill pill-ok">Working</span>
            )}
            {r.failingSince && r.lastError ? (
              <p role="alert" data-testid={`health-${r.part}-error`}>
                {r.lastError}
              </p>
            ) : null}
            <p className="muted">
              {r.lastSuccessAt ? `Last worked ${formatDateTime(r.lastSuccessAt, prefs)}.` : 'Has not worked yet.'}
              {!r.failingSince && r.lastError && r.lastErrorAt ? ` Last error ${formatDateTime(r.lastErrorAt, prefs)}: ${r.lastError}` : ''}
            </p>
          </div>
        ))}
        {children}
      </div>
    </section>
  );
}

export type FailingChannel = { inboxId: number; inboxName: string; label: string; lastError: string | null; link: string };

/** The shell's flag: channels that are failing right now, each linking to its settings page. */
export function FailingChannelsBanner({ channels }: { channels: FailingChannel[] }) {
  if (channels.length === 0) return null;
  return (
    <div className="trial-banner expired" role="alert" data-testid="failing-channels">
      {channels.length === 1 ? 'A channel is failing: ' : `${channels.length} channels are failing: `}
      {channels.map((c, i) => (
        <span key={`${c.inboxId}-${c.label}`}>
          {i > 0 ? '; ' : ''}
          <Link to={c.link}>
            {c.inboxName} ({c.label})
          </Link>
          {c.lastError ? ` — ${c.lastError}` : ''}
        </span>
      ))}
    </div>
  );
}
