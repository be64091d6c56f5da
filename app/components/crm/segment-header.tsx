import { Link } from '@remix-run/react';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ROLE_LOCKED_MESSAGE } from '~/models/shell/denied-messages';

/** The head of a segment page: name, type, total, Edit (reopens the dialog at step 1) and Delete. */
export function SegmentHeader({ segment, total, locked }: { segment: { id: number; name: string; isStatic: boolean }; total: number; locked: boolean }) {
  return (
    <header className="row">
      <h1>{segment.name}</h1>
      <span className="badge">{segment.isStatic ? 'Static' : 'Dynamic'}</span>
      <span className="muted" data-testid="segment-total">
        {total}
      </span>
      <div className="spacer" />
      {locked ? null : (
        <Link to={`/customers/segments/${segment.id}`} className="btn">
          Edit
        </Link>
      )}
      <DeleteConfirm id={`segment-${segment.id}`} intent="delete-segment" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
    </header>
  );
}
