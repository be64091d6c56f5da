import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react';
import type { ReactNode } from 'react';
import { ErrorList } from '~/components/ui/forms';
import { ACTION_STATUS_LABELS, ACTION_STATUSES, type ActionType } from '~/models/automation/rule-types';
import { PRIORITIES } from '../../../db/schema/inbox-constants';

/** The repeated rows of the rule builders (workflows, inbox automation rules): conditions, filters, actions. */

export type Option = { value: string; label: string };
/** What the action rows choose from (companies only where contact actions are offered). */
export type ActionOptions = {
  users: readonly Option[];
  tags: readonly Option[];
  inboxes: readonly Option[];
  companies?: readonly Option[];
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyField = FieldMetadata<any, any, any>;

/** A select or input of a repeated row: a short visible label and an accessible name that says which row. */
export function RowControl({
  label,
  name,
  field,
  options,
  placeholder,
  multiple,
  textarea,
}: {
  label: string;
  name: string;
  field: AnyField;
  options?: readonly Option[];
  placeholder?: string;
  multiple?: boolean;
  textarea?: boolean;
}) {
  let control: ReactNode;
  if (options) {
    const { key, ...props } = getSelectProps(field as FieldMetadata<string>, {
      ariaAttributes: true,
    });
    control = (
      <select key={key} {...props} multiple={multiple} aria-label={name}>
        {multiple ? null : <option value="">{placeholder ?? 'Select'}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (textarea) {
    const { key, ...props } = getTextareaProps(field as FieldMetadata<string>, {
      ariaAttributes: true,
    });
    control = <textarea key={key} {...props} rows={2} aria-label={name} />;
  } else {
    const { key, ...props } = getInputProps(field as FieldMetadata<string>, {
      type: 'text',
      ariaAttributes: true,
    });
    control = <input key={key} {...props} aria-label={name} autoComplete="off" />;
  }
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      {control}
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

export function Hidden({ field }: { field: AnyField }) {
  const { key, ...props } = getInputProps(field as FieldMetadata<string>, {
    type: 'hidden',
  });
  return <input key={key} {...props} />;
}

/** Removes one row: a submit button (conform's remove intent), so it works as plain HTML. */
export function RemoveRowButton({ label, button }: { label: string; button: Record<string, unknown> }) {
  return (
    <button className="btn btn-link" aria-label={label} {...button}>
      Remove
    </button>
  );
}

/** A `<details>` menu of submit buttons, each adding one row of its kind: it works as plain HTML. */
export function AddMenu({
  label,
  testId,
  items,
  disabled,
}: {
  label: string;
  testId: string;
  items: { key: string; label: string; button: Record<string, unknown> }[];
  disabled?: boolean;
}) {
  return (
    <details className="menu" data-testid={testId}>
      <summary className="btn">{label}</summary>
      <div className="menu-items stack">
        {items.map((item) => (
          <button
            key={item.key}
            className="btn btn-link"
            disabled={disabled}
            aria-label={`${label}: ${item.label}`}
            {...item.button}
            // With JavaScript the row is added in place: close the menu so it does not cover the form.
            onClick={(e) => e.currentTarget.closest('details')?.removeAttribute('open')}
          >
            {item.label}
          </button>
        ))}
      </div>
    </details>
  );
}

/** The fields of one action row, by its type (what section 5 asks each action for). */
export function ActionFields({ type, n, a, options }: { type: ActionType; n: number; a: Record<string, AnyField>; options: ActionOptions }) {
  const name = (what: string) => `Action ${n} ${what}`;
  switch (type) {
    case 'assign_user':
      return <RowControl label="Assignee" name={name('assignee')} field={a.userId} options={options.users} placeholder="Select a user" />;
    case 'assign_tag':
    case 'unassign_tag':
      return <RowControl label="Tags" name={name('tags')} field={a.tagIds} options={options.tags} multiple />;
    case 'leave_note':
      return <RowControl label="Note" name={name('note')} field={a.note} textarea />;
    case 'set_status':
      return (
        <RowControl
          label="Status"
          name={name('status')}
          field={a.status}
          options={ACTION_STATUSES.map((s) => ({
            value: s,
            label: ACTION_STATUS_LABELS[s],
          }))}
          placeholder="Select a status"
        />
      );
    case 'set_priority':
      return (
        <RowControl
          label="Priority"
          name={name('priority')}
          field={a.priority}
          options={PRIORITIES.map((p) => ({
            value: p,
            label: p[0].toUpperCase() + p.slice(1),
          }))}
          placeholder="Select a priority"
        />
      );
    case 'move_conversation':
    case 'delete_conversation':
      return <RowControl label="Inbox" name={name('inbox')} field={a.inboxId} options={options.inboxes} placeholder="Select an inbox" />;
    case 'add_contact_website':
      return <RowControl label="Website" name={name('website')} field={a.website} />;
    case 'add_contact_company':
      return <RowControl label="Company" name={name('company')} field={a.companyId} options={options.companies ?? []} placeholder="Select a company" />;
    case 'add_contact_title':
      return <RowControl label="Title" name={name('title')} field={a.title} />;
    case 'convert_to_case':
      return (
        <>
          <RowControl label="Inbox" name={name('inbox')} field={a.inboxId} options={options.inboxes} placeholder="Select an inbox" />
          <RowControl label="Title" name={name('title')} field={a.title} />
          <RowControl label="Description" name={name('description')} field={a.description} textarea />
        </>
      );
    default:
      return null;
  }
}
