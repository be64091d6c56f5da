import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react';
import { useEffect, useRef, type ReactNode } from 'react';
import { ErrorList } from '~/components/ui/forms';
import { ACTION_STATUS_LABELS, ACTION_STATUSES, type ActionType } from '~/models/automation/rule-constants';
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
  id,
  autoFocus,
}: {
  label: string;
  testId: string;
  items: { key: string; label: string; button: Record<string, unknown> }[];
  disabled?: boolean;
  /** See rowFocusProps: the menu takes the focus when the last row of its list was removed. */
  id?: string;
  autoFocus?: boolean;
}) {
  return (
    <details className="menu" data-testid={testId} id={id}>
      {/* eslint-disable-next-line jsx-a11y/no-autofocus -- only right after the user removed the row that had the focus */}
      <summary className="btn" autoFocus={autoFocus}>
        {label}
      </summary>
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

/**
 * Where the focus goes after a row is added or removed: the new row; after a removal, the row now in the removed
 * one's place, else the one before it; index -1 when the list is empty (its Add menu). Read on the server from
 * conform's add/remove intent and the draft it produced, so that it works with and without JavaScript.
 */
export type RowFocus = { list: string; index: number; rows: number } | null;

export function rowFocusAfter(formData: FormData, draft: Record<string, unknown>): RowFocus {
  let intent: { type?: unknown; payload?: { name?: unknown; index?: unknown } };
  try {
    intent = JSON.parse(String(formData.get('__intent__')));
  } catch {
    return null;
  }
  const list = intent?.payload?.name;
  if (typeof list !== 'string') return null;
  const rows = Array.isArray(draft[list]) ? (draft[list] as unknown[]).length : 0;
  const index = typeof intent.payload?.index === 'number' ? intent.payload.index : null;
  if (intent.type === 'insert') return { list, index: index ?? rows - 1, rows };
  if (intent.type === 'remove') return { list, index: Math.min(index ?? 0, rows - 1), rows };
  return null;
}

const rowId = (formId: string, list: string, index: number) => `${formId}-${list}-${index}`;
const addMenuId = (formId: string, list: string) => `${formId}-${list}-add`;

/**
 * Props of one row: an id, and for the row that takes the focus, `autofocus` (without JavaScript the page comes back
 * focused and scrolled there; a row div is focusable for that moment only).
 */
export function rowFocusProps(formId: string, list: string, index: number, focus: RowFocus | undefined) {
  const here = focus?.list === list && focus.index === index;
  return { id: rowId(formId, list, index), ...(here ? { tabIndex: -1, autoFocus: true } : {}) };
}

/** Props of a list's Add menu: its id, and the focus when the list's last row was just removed. */
export function addMenuFocusProps(formId: string, list: string, focus: RowFocus | undefined) {
  return { id: addMenuId(formId, list), autoFocus: focus?.list === list && focus.index === -1 };
}

/**
 * With JavaScript: after the add/remove round trip, the focus goes to the row's first control (or the Add menu).
 * conform applies the server's reply a render later than the action data arrives, so the move waits until the
 * list has the number of rows the reply left.
 */
export function useRowFocus(formId: string, focus: RowFocus | undefined, rows: Record<string, number>) {
  const pending = useRef<RowFocus | undefined>(undefined);
  useEffect(() => {
    pending.current = focus;
  }, [focus]);
  useEffect(() => {
    const want = pending.current;
    if (!want || rows[want.list] !== want.rows) return;
    pending.current = undefined;
    const row = document.getElementById(rowId(formId, want.list, want.index));
    const target = row
      ? (row.querySelector<HTMLElement>('select, textarea, input:not([type="hidden"])') ?? row.querySelector<HTMLElement>('button'))
      : document.querySelector<HTMLElement>(`#${CSS.escape(addMenuId(formId, want.list))} > summary`);
    target?.focus();
  });
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
