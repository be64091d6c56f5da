import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { DeadLetterNotRetriableError, deadLetterLabel, dismissDeadLetter, listDeadLetters, retryDeadLetter } from '~/models/automation/dead-letters.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/failed-automations';

/** Admins' view of the jobs that failed every retry (the dead letters), with Retry and Dismiss. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_workflow_rules');
  const list = await listDeadLetters({ accountId: ctx.account.id, page: readPage(new URL(request.url)) });
  return {
    user: publicUser(ctx),
    list: {
      ...list,
      rows: list.rows.map((d) => ({
        id: d.id,
        what: deadLetterLabel(d),
        subject: d.conversationId
          ? { to: `/inbox/${d.conversationId}`, label: `Conversation #${d.conversationId}` }
          : d.subjectType === 'conversation' && d.subjectId
            ? { to: `/inbox/${d.subjectId}`, label: `Conversation #${d.subjectId}` }
            : d.subjectType
              ? { to: null, label: `${d.subjectType.replace(/_/g, ' ')} #${d.subjectId}` }
              : null,
        when: d.occurredAt ?? d.failedAt,
        failedAt: d.failedAt,
        attempts: d.attempts,
        error: d.error ?? 'No error was recorded',
        retriable: d.queue !== null,
      })),
    },
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_workflow_rules');
  const formData = await request.formData();
  const id = String(formData.get('id') ?? '');
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'retry') {
    try {
      if (!(await retryDeadLetter({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    } catch (err) {
      if (err instanceof DeadLetterNotRetriableError) return redirectWithToast(PATH, { type: 'error', text: err.message });
      throw err;
    }
    return redirectWithToast(PATH, 'Automation Retried');
  }
  if (intent === 'dismiss') {
    if (!(await dismissDeadLetter({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(PATH, { type: 'info', text: 'Failed Automation Dismissed' });
  }
  throw new Response('Unknown intent', { status: 400 });
}

export default function FailedAutomations() {
  const { user, list } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Failed Automations"
      subHeader="Automation steps and deliveries that still failed after every retry. Retry sends one back to run again; Dismiss forgets it."
      learnMore="/help-center"
    >
      <ListTable
        list={list}
        testId="failed-automations"
        rowTestId={(r) => `dead-letter-${r.id}`}
        empty="No failed automations."
        columns={[
          { header: 'Event', cell: (r) => r.what },
          { header: 'Subject', cell: (r) => (r.subject ? r.subject.to ? <Link to={r.subject.to}>{r.subject.label}</Link> : r.subject.label : null) },
          { header: 'When', cell: (r) => formatDateTime(r.when, user) },
          { header: 'Failed', cell: (r) => formatDateTime(r.failedAt, user) },
          { header: 'Attempts', cell: (r) => r.attempts ?? '' },
          {
            header: 'Last error',
            cell: (r) => (
              <span className="truncate" title={r.error}>
                {r.error}
              </span>
            ),
          },
          {
            header: 'Action',
            cell: (r) => (
              <div className="row">
                <Form method="post">
                  <input type="hidden" name="id" value={r.id} />
                  <button type="submit" className="btn" name="intent" value="retry" disabled={!r.retriable} title={r.retriable ? undefined : 'Its queue is no longer known'}>
                    Retry
                  </button>
                </Form>
                <DeleteConfirm id={`dead-letter-${r.id}`} label="Dismiss" title="Dismiss" text="Are you sure you want to dismiss ?" intent="dismiss" fields={{ id: r.id }} />
              </div>
            ),
          },
        ]}
      />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Failed Automations', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
