import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { TableHead } from '~/components/ui/list-table';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, Field } from '~/components/ui/forms';
import { RunningTimer } from '~/components/time-tracking/running-timer';
import { getConversation } from '~/models/inbox/conversations.server';
import { TimeEntryEditSchema, TimeEntrySchema } from '~/models/time-tracking/schemas';
import { conversationTime, deleteTimeEntry, logTime, startTimer, stopTimer, TimeEntryError, updateTimeEntry } from '~/models/time-tracking/time-entries.server';
import { parseWithZod } from '~/utils/conform.server';
import { formatDate, pageTitle } from '~/utils/format';
import { formatHoursMinutes } from '~/utils/duration';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

function readId(param: string | undefined) {
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

/** Time tracking on one conversation (ADR 071): the agent's timer, manual entries, totals per agent. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readId(params.conversationId);
  const found = await getConversation({ accountId: ctx.account.id, id });
  if (!found) throw new Response('Not Found', { status: 404 });
  const time = await conversationTime({ accountId: ctx.account.id, conversationId: id, userId: ctx.user.id });
  const editId = parseRouteId(new URL(request.url).searchParams.get('edit') ?? undefined);
  return {
    user: publicUser(ctx),
    conversation: { id, subject: found.conversation.subject ?? `Conversation #${id}` },
    time: {
      ...time,
      entries: time.entries.map((e) => ({ ...e, mine: e.userId === ctx.user.id })),
      runningSeconds: time.running ? time.entries.find((e) => e.id === time.running!.id)!.seconds : 0,
    },
    editing: time.entries.find((e) => e.id === editId && e.userId === ctx.user.id && e.durationSeconds !== null) ?? null,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readId(params.conversationId);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const back = formData.get('back') === 'conversation' ? `/inbox/${id}` : `/inbox/${id}/time`;
  const who = { accountId: ctx.account.id, userId: ctx.user.id };
  try {
    switch (intent) {
      case 'start':
        await startTimer({ ...who, conversationId: id });
        return redirectWithToast(back, 'Timer started');
      case 'stop': {
        const stopped = await stopTimer({ ...who, conversationId: id });
        if (!stopped) return redirectWithToast(back, { type: 'error', text: 'Your timer is not running on this conversation.' });
        return redirectWithToast(back, `Timer stopped: ${formatHoursMinutes(stopped.durationSeconds ?? 0)} logged`);
      }
      case 'log': {
        const submission = parseWithZod(formData, { schema: TimeEntrySchema });
        if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
        const v = submission.value;
        await logTime({ ...who, conversationId: id, minutes: v.duration, note: v.note, billable: v.billable, workedOn: v.workedOn });
        return redirectWithToast(`/inbox/${id}/time`, 'Time logged');
      }
      case 'edit': {
        const submission = parseWithZod(formData, { schema: TimeEntryEditSchema });
        if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
        const v = submission.value;
        if (!(await updateTimeEntry({ ...who, id: v.id, minutes: v.duration, note: v.note, billable: v.billable }))) throw new Response('Not Found', { status: 404 });
        return redirectWithToast(`/inbox/${id}/time`, { type: 'info', text: 'Time entry updated' });
      }
      case 'delete': {
        const entryId = parseRouteId(String(formData.get('id') ?? ''));
        if (entryId === null || !(await deleteTimeEntry({ ...who, id: entryId }))) throw new Response('Not Found', { status: 404 });
        return redirectWithToast(`/inbox/${id}/time`, { type: 'info', text: 'Time entry deleted' });
      }
      default:
        throw new Response('Unknown intent', { status: 400 });
    }
  } catch (err) {
    if (err instanceof TimeEntryError) {
      if (err.message === 'No such conversation') throw new Response('Not Found', { status: 404 });
      return redirectWithToast(back, { type: 'error', text: err.message });
    }
    throw err;
  }
}

export const handle = { breadcrumb: 'Time' };

export default function ConversationTime() {
  const { user, conversation, time, editing } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <section className="page stack" data-testid="time-tracking">
      <header className="row">
        <h1>Time on {conversation.subject}</h1>
        <div className="spacer" />
        <Link to={`/inbox/${conversation.id}`} className="btn">
          Back to the conversation
        </Link>
      </header>
      <div className="card stack">
        <h2>Timer</h2>
        <Form method="post" className="row">
          {time.running ? (
            <>
              <RunningTimer startedAt={String(time.running.startedAt)} serverSeconds={time.runningSeconds} />
              <button className="btn btn-primary" name="intent" value="stop">
                Stop timer
              </button>
            </>
          ) : (
            <button className="btn btn-primary" name="intent" value="start">
              Start timer
            </button>
          )}
        </Form>
        <p data-testid="time-total">
          Total <strong>{formatHoursMinutes(time.totalSeconds)}</strong>, billable <strong>{formatHoursMinutes(time.billableSeconds)}</strong>
        </p>
        {time.perAgent.length ? (
          <table className="table" data-testid="time-per-agent">
            <TableHead headers={['Agent', 'Time', 'Billable']} />
            <tbody>
              {time.perAgent.map((a) => (
                <tr key={a.userId}>
                  <td>{a.agent}</td>
                  <td>{formatHoursMinutes(a.seconds)}</td>
                  <td>{formatHoursMinutes(a.billableSeconds)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
      {editing ? (
        <EntryForm key={`edit-${editing.id}`} intent="edit" title="Edit time entry" entry={editing} lastResult={actionData?.intent === 'edit' ? actionData.result : undefined} />
      ) : (
        <EntryForm key="log" intent="log" title="Log time" lastResult={actionData?.intent === 'log' ? actionData.result : undefined} />
      )}
      <div className="card">
        <h2>Entries</h2>
        {time.entries.length === 0 ? (
          <p className="muted">No time logged on this conversation yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="time-entries">
              <TableHead headers={['Day', 'Agent', 'Time', 'Billable', 'Note', { hidden: 'Actions' }]} />
              <tbody>
                {time.entries.map((e) => (
                  <tr key={e.id} data-testid={`time-entry-${e.id}`}>
                    <td>{formatDate(e.startedAt, user)}</td>
                    <td>{e.agent}</td>
                    <td>{e.durationSeconds === null ? 'running' : formatHoursMinutes(e.seconds)}</td>
                    <td>{e.billable ? 'Yes' : 'No'}</td>
                    <td>{e.note}</td>
                    <td>
                      {e.mine ? (
                        <span className="row">
                          {e.durationSeconds !== null ? (
                            <Link to={`?edit=${e.id}`} className="btn" aria-label={`Edit entry of ${formatHoursMinutes(e.seconds)}`}>
                              Edit
                            </Link>
                          ) : null}
                          <DeleteConfirm id={`time-entry-${e.id}`} fields={{ id: String(e.id) }} text="Delete this time entry?" />
                        </span>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}

type Entry = { id: number; seconds: number; note: string; billable: boolean };

function EntryForm({ intent, title, entry, lastResult }: { intent: 'log' | 'edit'; title: string; entry?: Entry; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm<{ duration: string; note: string; billable?: string; workedOn?: string }>({
    id: `time-${intent}`,
    lastResult,
    defaultValue: entry ? { duration: String(Math.round(entry.seconds / 60)), note: entry.note, billable: entry.billable ? 'on' : undefined } : undefined,
    shouldValidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)} className="card stack" aria-labelledby={`${form.id}-title`}>
      <h2 id={`${form.id}-title`}>{title}</h2>
      {entry ? <input type="hidden" name="id" value={entry.id} /> : null}
      <Field label="Time spent (minutes, or h:mm)" field={fields.duration} inputMode="numeric" placeholder="45 or 1:30" />
      {intent === 'log' ? <Field label="Day" type="date" field={fields.workedOn} /> : null}
      <Field label="Note" field={fields.note} maxLength={500} />
      <CheckboxField label="Billable" field={fields.billable} />
      <div className="row">
        <button className="btn btn-primary" name="intent" value={intent}>
          {intent === 'log' ? 'Log time' : 'Save'}
        </button>
        {entry ? (
          <Link to="?" className="btn">
            Cancel
          </Link>
        ) : null}
      </div>
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Time', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
