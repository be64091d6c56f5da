import type { z } from 'zod';
import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form } from '@remix-run/react';
import { TextareaField } from '~/components/ui/forms';
import type { NoteSchema } from '~/models/crm/contacts.schemas';
import { formatDateTime, type DatePrefs } from '~/utils/format';

type Note = { id: number; body: string; createdAt: string | Date; firstName: string | null; lastName: string | null };

/** Notes of a contact or a company: the add form (intent "note"), then the notes, newest first. */
export function NotesSection(props: { formId: string; notes: Note[]; locked: boolean; prefs: DatePrefs; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm<z.input<typeof NoteSchema>>({
    id: props.formId,
    lastResult: props.lastResult,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <section className="stack" aria-label="Notes">
      <h2>Notes</h2>
      {props.locked ? null : (
        <Form method="post" {...getFormProps(form)} className="stack">
          <TextareaField label="Add a note" field={fields.body} rows={2} maxLength={160} />
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="note">
              Add Note
            </button>
          </div>
        </Form>
      )}
      {props.notes.length === 0 ? <p className="muted">No notes yet.</p> : null}
      <ul data-testid="notes">
        {props.notes.map((n) => (
          <li key={n.id}>
            <p>{n.body}</p>
            <small className="muted">
              {[n.firstName, n.lastName].filter(Boolean).join(' ')} · {formatDateTime(n.createdAt, props.prefs)}
            </small>
          </li>
        ))}
      </ul>
    </section>
  );
}
