import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form, Link } from '@remix-run/react';
import type { z } from 'zod';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import type { AssignSchema, MergeSchema, MoveSchema, PrioritySchema, SnoozeSchema, StatusSchema, TagSchema } from '~/models/inbox/forms';
import { STATUS_CHOICES } from '~/models/inbox/form-constants';
import { PRIORITY_CHOICES } from './choices';
import { TagPill } from './pills';

type Result = SubmissionResult<string[]> | undefined;
type Option = { id: number; name: string };

/**
 * The operations on one conversation, each a plain form with its intent (works without JavaScript). Their
 * errors come back from the server as the form's lastResult.
 */
function useOpForm<S extends z.ZodType>(id: string, lastResult: Result, defaultValue?: Record<string, string>) {
  return useForm<z.input<S> & Record<string, unknown>>({
    id,
    lastResult,
    defaultValue: defaultValue as never,
    shouldValidate: 'onSubmit',
  });
}

const options = (items: Option[]) => items.map((i) => ({ value: String(i.id), label: i.name }));

export function AssignForm({
  users,
  teams,
  assigneeId,
  teamId,
  lastResult,
}: {
  users: Option[];
  teams: Option[];
  assigneeId: number | null;
  teamId: number | null;
  lastResult: Result;
}) {
  const [form, fields] = useOpForm<typeof AssignSchema>('assign', lastResult, {
    assigneeId: assigneeId ? String(assigneeId) : '',
    teamId: teamId ? String(teamId) : '',
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <SelectField label="Assignee" field={fields.assigneeId} options={options(users)} placeholder="Unassigned" />
      <SelectField label="Team" field={fields.teamId} options={options(teams)} placeholder="No team" />
      <ErrorList id={form.errorId} errors={form.errors} />
      <button className="btn" name="intent" value="assign">
        Assign
      </button>
    </Form>
  );
}

export function StatusForm({ status, lastResult }: { status: string; lastResult: Result }) {
  const [form, fields] = useOpForm<typeof StatusSchema>('status', lastResult, { status: status === 'snoozed' ? '' : status });
  return (
    <Form method="post" {...getFormProps(form)}>
      <SelectField
        label="Status"
        field={fields.status}
        options={STATUS_CHOICES.map((s) => ({ value: s, label: s }))}
        placeholder={status === 'snoozed' ? 'snoozed' : undefined}
      />
      <ErrorList id={form.errorId} errors={form.errors} />
      <button className="btn" name="intent" value="status">
        Change status
      </button>
    </Form>
  );
}

export function PriorityForm({ priority, lastResult }: { priority: string; lastResult: Result }) {
  const [form, fields] = useOpForm<typeof PrioritySchema>('priority', lastResult, { priority });
  return (
    <Form method="post" {...getFormProps(form)}>
      <SelectField label="Priority" field={fields.priority} options={PRIORITY_CHOICES} />
      <ErrorList id={form.errorId} errors={form.errors} />
      <button className="btn" name="intent" value="priority">
        Change priority
      </button>
    </Form>
  );
}

/** Snooze until a date and time of the agent's own time zone; the engine reopens the conversation then. */
export function SnoozeForm({ until, min, timezone, lastResult }: { until: string; min: string; timezone: string; lastResult: Result }) {
  const [form, fields] = useOpForm<typeof SnoozeSchema>('snooze', lastResult, { until });
  return (
    <Form method="post" {...getFormProps(form)}>
      <Field label="Snooze until" field={fields.until} type="datetime-local" min={min} hint={`Your time zone: ${timezone}`} />
      <ErrorList id={form.errorId} errors={form.errors} />
      <button className="btn" name="intent" value="snooze">
        Snooze
      </button>
    </Form>
  );
}

export function MoveForm({ inboxes, inboxId, lastResult }: { inboxes: Option[]; inboxId: number; lastResult: Result }) {
  const [form, fields] = useOpForm<typeof MoveSchema>('move', lastResult, { inboxId: String(inboxId) });
  return (
    <Form method="post" {...getFormProps(form)}>
      <SelectField label="Inbox" field={fields.inboxId} options={options(inboxes)} />
      <ErrorList id={form.errorId} errors={form.errors} />
      <button className="btn" name="intent" value="move">
        Move
      </button>
    </Form>
  );
}

export function TagsForm({
  tags,
  current,
  canManage,
  lastResult,
}: {
  tags: (Option & { color: string })[];
  current: (Option & { color: string })[];
  canManage: boolean;
  lastResult: Result;
}) {
  const [form, fields] = useOpForm<typeof TagSchema>('tag', lastResult);
  const available = tags.filter((t) => !current.some((c) => c.id === t.id));
  return (
    <div>
      <div className="chips" data-testid="conversation-tags">
        {current.length === 0 ? <span className="muted">No tags</span> : null}
        {current.map((t) => (
          <span key={t.id}>
            <TagPill name={t.name} color={t.color} />
            {canManage ? (
              <Form method="post">
                <input type="hidden" name="tagId" value={t.id} />
                <button className="btn-link" name="intent" value="untag" aria-label={`Remove tag ${t.name}`}>
                  ×
                </button>
              </Form>
            ) : null}
          </span>
        ))}
      </div>
      {canManage ? (
        tags.length === 0 ? (
          <p className="muted">
            No tags yet: <Link to="/settings/tags">create tags</Link>.
          </p>
        ) : (
          <Form method="post" {...getFormProps(form)}>
            <SelectField label="Add tag" field={fields.tagId} options={options(available)} placeholder="Choose a tag" />
            <ErrorList id={form.errorId} errors={form.errors} />
            <button className="btn" name="intent" value="tag">
              Add tag
            </button>
          </Form>
        )
      ) : null}
    </div>
  );
}

export type MergeCandidate = { id: number; subject: string; status: string; contact: string };

/**
 * Merge other conversations into this one: tick the contact's other conversations or search results (a GET
 * search on this page), or type ids.
 */
export function MergeForm({ candidates, query, lastResult }: { candidates: MergeCandidate[]; query: string; lastResult: Result }) {
  const [form, fields] = useOpForm<typeof MergeSchema>('merge', lastResult);
  return (
    <div>
      <Form method="get" className="field">
        <label htmlFor="merge-q">Find conversations</label>
        <div className="row">
          <input id="merge-q" type="search" name="merge_q" defaultValue={query} placeholder="Subject, text, contact, #id" />
          <button className="btn">Search</button>
        </div>
      </Form>
      <Form method="post" {...getFormProps(form)}>
        {candidates.length ? (
          <fieldset>
            <legend>Merge these into this conversation</legend>
            {candidates.map((c) => (
              <label key={c.id} className="check">
                <input type="checkbox" name="sourceIds" value={c.id} />
                <span>
                  #{c.id} {c.subject || '(no subject)'}{' '}
                  <small className="muted">
                    {c.contact ? `${c.contact} · ` : ''}
                    {c.status}
                  </small>
                </span>
              </label>
            ))}
          </fieldset>
        ) : query ? (
          <p className="muted">No other conversation matches “{query}”.</p>
        ) : null}
        <Field label="Conversation ids" field={fields.ids} placeholder="e.g. 12, 15" hint="Comma-separated; their messages move here." />
        <ErrorList id={fields.sourceIds.errorId} errors={fields.sourceIds.errors} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <button className="btn" name="intent" value="merge">
          Merge
        </button>
      </Form>
    </div>
  );
}
