import { Link, useLocation } from '@remix-run/react';
import { guideLinkForPath } from '~/models/help/guide';
import type { ReactNode } from 'react';
import { ROLE_LOCKED_MESSAGE } from '~/models/shell/denied-messages';
import { DeniedBadge } from './badges';
import { UnsavedChangesGuard } from './unsaved-changes';
import { Lock } from 'lucide-react';

/** The settings layout of section 2: title, sub-header, learn-more link, a card, then Cancel and Save. */
export function SettingsPage({
  title,
  subHeader,
  learnMore,
  actions,
  locked,
  children,
}: {
  title: ReactNode;
  subHeader?: ReactNode;
  learnMore?: string;
  actions?: ReactNode;
  locked?: boolean;
  children: ReactNode;
}) {
  // "/help-center" means: the guide's section about this page (ADR 037).
  const { pathname } = useLocation();
  return (
    <section className="settings-page">
      <header>
        <div>
          <h1>
            {title} {locked ? <DeniedBadge kind="role" /> : null}
          </h1>
          {subHeader ? <p className="muted">{subHeader}</p> : null}
          {learnMore ? (
            <Link to={learnMore === '/help-center' ? guideLinkForPath(pathname) : learnMore} className="muted">
              Learn more
            </Link>
          ) : null}
        </div>
        <div className="spacer" />
        {actions}
      </header>
      {locked ? (
        <p className="locked-note" data-testid="locked-note">
          <Lock aria-hidden="true" size={14} /> {ROLE_LOCKED_MESSAGE}
        </p>
      ) : null}
      <div className="card">{children}</div>
    </section>
  );
}

/**
 * Cancel and Save at the foot of a settings card; locked forms show them disabled with the role tooltip.
 * Rendered inside the form, it also brings the unsaved-changes warning (with JavaScript).
 */
export function FormActions({ cancelTo, submitLabel = 'Save', locked, intent, disabled }: { cancelTo: string; submitLabel?: string; locked?: boolean; intent?: string; disabled?: boolean }) {
  return (
    <div className="actions">
      {locked ? null : <UnsavedChangesGuard />}
      <Link to={cancelTo} className="btn">
        Cancel
      </Link>
      <button
        type="submit"
        className="btn btn-primary"
        name={intent ? 'intent' : undefined}
        value={intent}
        disabled={locked || disabled}
        title={locked ? ROLE_LOCKED_MESSAGE : undefined}
      >
        {locked ? <Lock aria-hidden="true" size={14} /> : null}
        {submitLabel}
      </button>
    </div>
  );
}
