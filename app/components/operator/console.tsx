import { Form, NavLink } from '@remix-run/react';
import type { ReactNode } from 'react';

/** The operator console's frame (ADR 152): its own header and navigation, apart from any account's shell. */
export function ConsoleFrame({ email, children }: { email: string; children: ReactNode }) {
  return (
    <div className="operator-console">
      <header className="operator-header row wrap">
        <span className="brand">Parley operator</span>
        <nav aria-label="Console" className="row wrap">
          <NavLink to="/operator" end>
            Accounts
          </NavLink>
          <NavLink to="/operator/audit">Audit log</NavLink>
          <NavLink to="/operator/status">System status</NavLink>
        </nav>
        <div className="spacer" />
        <span className="muted" data-testid="operator-email">
          {email}
        </span>
        <Form method="post" action="/operator/signout">
          <button type="submit" className="btn btn-link">
            Sign out
          </button>
        </Form>
      </header>
      <main id="main" className="operator-main stack">
        {children}
      </main>
    </div>
  );
}

export function formatBytes(n: number | null | undefined) {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${(n / (1024 * 1024 * 1024)).toFixed(2)} GB`;
}

/** Dates of the console in UTC: operators of one installation may sit in any zone, the log reads the same for all. */
export function utc(d: Date | string | null | undefined) {
  if (!d) return '—';
  return `${new Date(d).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
