import { Link } from '@remix-run/react';
import type { OnboardingStep } from '~/models/onboarding/onboarding.server';

/** The getting-started checklist (Home and Getting Started): each step ticked by what the account has done. */
export function OnboardingChecklist({ steps, detailed }: { steps: OnboardingStep[]; detailed?: boolean }) {
  const done = steps.filter((s) => s.done).length;
  return (
    <div className="stack" data-testid="onboarding-checklist">
      <p className="muted" data-testid="onboarding-progress">
        {done === steps.length ? 'All done.' : `${done} of ${steps.length} steps done.`}
      </p>
      <ol className="stack">
        {steps.map((s) => (
          <li key={s.key} data-done={s.done} data-testid={`step-${s.key}`}>
            <span className={`pill${s.done ? ' pill-ok' : ''}`}>{s.done ? 'Done' : 'To do'}</span> <Link to={s.to}>{s.label}</Link>
            {detailed ? (
              <>
                <br />
                <span className="muted">{s.hint}</span> <Link to={s.guide}>How?</Link>
              </>
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
