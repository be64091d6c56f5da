import { FEATURE_DENIED_MESSAGE } from '~/models/shell/denied-messages';
import { ROLE_LOCKED_MESSAGE } from '~/models/shell/denied-messages';
import { Lock, Star } from 'lucide-react';

/** The role-denied (lock) and feature-denied (star) markers used on menus, buttons and locked forms. */
export function DeniedBadge({ kind }: { kind: 'role' | 'feature' }) {
  return kind === 'role' ? (
    <span className="badge badge-role" title={ROLE_LOCKED_MESSAGE} role="img" aria-label="Locked by your role" data-denied="role">
      <Lock aria-hidden="true" size={12} />
    </span>
  ) : (
    <span className="badge badge-feature" title={FEATURE_DENIED_MESSAGE} role="img" aria-label="Not in your plan" data-denied="feature">
      <Star aria-hidden="true" size={12} />
    </span>
  );
}
