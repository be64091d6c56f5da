import type { z } from 'zod';
import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form, Link } from '@remix-run/react';
import { ErrorList, SelectField } from '~/components/ui/forms';
import { STATUS_CHOICES } from '~/models/inbox/form-constants';
import type { PropertiesSchema } from '~/models/inbox/forms';
import { PRIORITY_CHOICES } from './choices';
import { TagPill } from './pills';

type Option = { id: number; name: string };
const options = (items: Option[]) => items.map((i) => ({ value: String(i.id), label: i.name }));

/**
 * Status, assignee, team, priority, inbox and tags of a conversation in one form and one Save (ADR 035). Every
 * control is plain HTML: without JavaScript it posts like any form; the server applies only what changed.
 */
export function PropertiesForm({
  conversation,
  users,
  teams,
  inboxes,
  tags,
  lastResult,
}: {
  conversation: { status: string; assigneeId: number | null; teamId: number | null; priority: string; inboxId: number; tags: Option[] };
  users: Option[];
  teams: Option[];
  inboxes: Option[];
  tags: (Option & { color: string })[];
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const c = conversation;
  const [form, fields] = useForm<z.input<typeof PropertiesSchema>>({
    id: 'properties',
    lastResult,
    defaultValue: {
      status: c.status === 'snoozed' ? '' : c.status,
      assigneeId: c.assigneeId ? String(c.assigneeId) : '',
      teamId: c.teamId ? String(c.teamId) : '',
      priority: c.priority,
      inboxId: String(c.inboxId),
    },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const ticked = new Set(c.tags.map((t) => t.id));
  return (
    <Form method="post" {...getFormProps(form)} data-testid="properties">
      <SelectField
        label="Status"
        field={fields.status}
        options={STATUS_CHOICES.map((s) => ({ value: s, label: s }))}
        placeholder={c.status === 'snoozed' ? 'snoozed' : undefined}
      />
      <SelectField label="Assignee" field={fields.assigneeId} options={options(users)} placeholder="Unassigned" />
      <SelectField label="Team" field={fields.teamId} options={options(teams)} placeholder="No team" />
      <SelectField label="Priority" field={fields.priority} options={PRIORITY_CHOICES} />
      <SelectField label="Inbox" field={fields.inboxId} options={options(inboxes)} />
      <fieldset className="tag-choices">
        <legend>Tags</legend>
        {tags.length === 0 ? (
          <p className="muted">
            No tags yet: <Link to="/settings/tags">create tags</Link>.
          </p>
        ) : null}
        {tags.map((t) => (
          <label key={t.id} className="check">
            <input type="checkbox" name="tagIds" value={t.id} defaultChecked={ticked.has(t.id)} />
            <TagPill name={t.name} color={t.color} />
          </label>
        ))}
        <ErrorList id={fields.tagIds.errorId} errors={fields.tagIds.errors} />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <button className="btn btn-primary" name="intent" value="properties">
        Save properties
      </button>
    </Form>
  );
}
