import { Form } from '@remix-run/react';
import type { ReactNode } from 'react';

/**
 * The one delete confirmation: a button opens a popover (no script needed in current browsers) holding the
 * form that really deletes. Title "Delete", text "Are you sure you want to delete ?", Cancel and Delete.
 */
export function DeleteConfirm({
  id,
  action,
  intent = 'delete',
  fields = {},
  label = 'Delete',
  title = 'Delete',
  text = 'Are you sure you want to delete ?',
  disabled,
  disabledReason,
  form,
  confirmLabel = 'Delete',
  tone = 'danger',
}: {
  id: string;
  action?: string;
  intent?: string;
  fields?: Record<string, string>;
  label?: ReactNode;
  title?: string;
  text?: string;
  disabled?: boolean;
  disabledReason?: string;
  /**
   * Confirms the submission of an existing form (a selection of rows with its checkboxes) instead of holding a
   * form of its own: the Delete button submits that form with the intent.
   */
  form?: string;
  /** The confirming button's text, for confirmations other than deleting (e.g. "Status Change"). */
  confirmLabel?: string;
  /** A confirmation that destroys nothing (a status change) confirms with the primary button, not the red one. */
  tone?: 'danger' | 'neutral';
}) {
  const popoverId = `confirm-${id}`;
  const confirmClass = tone === 'danger' ? 'btn btn-danger' : 'btn btn-primary';
  return (
    <>
      <button type="button" className="btn" {...{ popovertarget: popoverId }} disabled={disabled} title={disabled ? disabledReason : undefined}>
        {label}
      </button>
      <div id={popoverId} {...{ popover: 'auto' }} role="dialog" aria-labelledby={`${popoverId}-title`}>
        <h2 id={`${popoverId}-title`}>{title}</h2>
        <p>{text}</p>
        {form ? (
          <div className="dialog-actions">
            <button type="button" className="btn" {...{ popovertarget: popoverId, popovertargetaction: 'hide' }}>
              Cancel
            </button>
            <button type="submit" className={confirmClass} form={form} name="intent" value={intent}>
              {confirmLabel}
            </button>
          </div>
        ) : (
          <Form method="post" action={action} className="dialog-actions">
            {Object.entries(fields).map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
            <button type="button" className="btn" {...{ popovertarget: popoverId, popovertargetaction: 'hide' }}>
              Cancel
            </button>
            <button type="submit" className={confirmClass} name="intent" value={intent}>
              {confirmLabel}
            </button>
          </Form>
        )}
      </div>
    </>
  );
}
