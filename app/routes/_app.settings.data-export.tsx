import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { Download, RefreshCw } from 'lucide-react';
import { formatSize } from '~/components/inbox/thread';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { useLiveRevalidation } from '~/components/shell/use-live';
import { updateAccountErasureMode } from '~/models/accounts/accounts.server';
import { erasureModeOf } from '~/models/crm/erasure.server';
import { listAccountExports, requestAccountExport } from '~/models/operations/account-export.server';
import { EXPORT_TTL_DAYS } from '~/models/operations/constants';
import { ErasureModeSchema } from '~/models/operations/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireAccountOwner } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/data-export';

/** My Organization › Data Export (ADR 153): the whole account as an archive, and what contact erasure does. Owner only. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireAccountOwner(request);
  const exports = await listAccountExports({ accountId: ctx.account.id });
  return {
    user: publicUser(ctx),
    erasureMode: erasureModeOf(ctx.account.settings),
    exports: exports.map((e) => ({
      id: e.id,
      status: e.status,
      totalRows: e.totalRows,
      doneRows: e.doneRows,
      sizeBytes: e.sizeBytes,
      createdAt: e.createdAt,
      finishedAt: e.finishedAt,
      downloadedAt: e.downloadedAt,
      expiresAt: e.expiresAt,
      error: e.error,
      // Ready but past its expiry before the hourly clean-up ran: shown as what it is.
      expired: e.status === 'ready' && e.expiresAt !== null && e.expiresAt.getTime() <= Date.now(),
    })),
  };
}

type ActionData = { intent: string; formErrors?: string[] };

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireAccountOwner(request);
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  switch (intent) {
    case 'request': {
      const { alreadyRunning } = await requestAccountExport({ accountId: ctx.account.id, requestedBy: { kind: 'user', id: ctx.user.id } });
      return redirectWithToast(
        PATH,
        alreadyRunning ? { type: 'info', text: 'An export is already being made: it is listed below.' } : 'Export requested: the archive is being made in the background.',
      );
    }
    case 'erasure-mode': {
      const submission = parseWithZod(formData, { schema: ErasureModeSchema });
      if (submission.status !== 'success') return data<ActionData>({ intent, formErrors: submission.error?.mode ?? ['Choose what happens to the conversations'] }, { status: 400 });
      await updateAccountErasureMode({ accountId: ctx.account.id, userId: ctx.user.id, mode: submission.value.mode });
      return redirectWithToast(PATH, 'Erasure setting saved');
    }
    default:
      throw new Response('Unknown intent', { status: 400 });
  }
}

export const handle = { breadcrumb: 'Data Export' };

const STATUS_LABELS = {
  queued: 'Waiting to start',
  running: 'Being made',
  ready: 'Ready to download',
  downloaded: 'Downloaded',
  expired: 'Expired',
  failed: 'Failed',
} as const;

export default function DataExport() {
  const { exports, user, erasureMode } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const active = exports.some((e) => e.status === 'queued' || e.status === 'running');
  useLiveRevalidation((m) => m.type === 'export.progress');
  return (
    <div className="stack">
      {/* Without JavaScript the page reloads itself while an export is being made (with it, live updates do). */}
      {active ? (
        <noscript>
          <meta httpEquiv="refresh" content="3" />
        </noscript>
      ) : null}
      <SettingsPage
        title="Data Export"
        subHeader={`The whole account as one archive: conversations with their messages and attachments, contacts and companies, the knowledge base, surveys with their responses, and the settings. Each archive can be downloaded once and is deleted after ${EXPORT_TTL_DAYS} days.`}
        learnMore="/help-center"
        actions={
          <Form method="post">
            <button type="submit" className="btn btn-primary" name="intent" value="request" disabled={active}>
              Request export
            </button>
          </Form>
        }
      >
        {exports.length === 0 ? (
          <div className="stack" data-testid="exports-empty">
            <p>No export yet. Request one: the archive is made in the background and this page shows its progress.</p>
            <p className="muted">
              <Link to="/help-center/data-export-and-erasure">What the archive holds</Link>
            </p>
          </div>
        ) : (
          <div className="table-scroll">
            <table className="table" data-testid="exports">
              <thead>
                <tr>
                  <th scope="col">Requested</th>
                  <th scope="col">Status</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Archive</th>
                </tr>
              </thead>
              <tbody>
                {exports.map((e) => (
                  <tr key={e.id} data-testid={`export-${e.id}`}>
                    <td>{formatDateTime(e.createdAt, user)}</td>
                    <td data-testid="export-status">{e.expired ? STATUS_LABELS.expired : STATUS_LABELS[e.status]}</td>
                    <td>
                      {e.status === 'queued' || e.status === 'running' ? (
                        <>
                          <label htmlFor={`export-progress-${e.id}`}>
                            {e.doneRows} of {e.totalRows} rows
                          </label>{' '}
                          <progress id={`export-progress-${e.id}`} max={Math.max(1, e.totalRows)} value={e.doneRows} />
                        </>
                      ) : (
                        `${e.doneRows} rows`
                      )}
                    </td>
                    <td>
                      {e.status === 'ready' && !e.expired ? (
                        <a className="btn" href={`${PATH}/${e.id}/download`} data-testid="export-download">
                          <Download aria-hidden="true" size={14} /> Download{e.sizeBytes ? ` (${formatSize(e.sizeBytes)})` : ''}
                        </a>
                      ) : e.status === 'downloaded' ? (
                        <span>Downloaded {e.downloadedAt ? formatDateTime(e.downloadedAt, user) : ''}; the archive was deleted.</span>
                      ) : e.status === 'expired' || e.expired ? (
                        <span>Not downloaded in time; the archive was deleted.</span>
                      ) : e.status === 'failed' ? (
                        <span role="alert">{e.error ?? 'The archive could not be written.'}</span>
                      ) : (
                        <span className="muted">Not ready yet</span>
                      )}
                      {e.status === 'ready' && !e.expired && e.expiresAt ? <small className="muted"> Until {formatDateTime(e.expiresAt, user)}, once.</small> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {active ? (
          <p className="muted">
            The export runs in the background; this page updates by itself.{' '}
            <Link to={PATH}>
              <RefreshCw aria-hidden="true" size={14} /> Refresh
            </Link>
          </p>
        ) : null}
      </SettingsPage>
      <SettingsPage title="Contact erasure" subHeader="When a contact asks to be forgotten, “Erase personal data” on their page removes them, their messages, notes, survey and form answers and their files.">
        <Form method="post" className="stack">
          <fieldset className="stack">
            <legend>Their conversations</legend>
            <label className="check">
              <input type="radio" name="mode" value="anonymise" defaultChecked={erasureMode === 'anonymise'} /> Keep them, anonymised (the agents’ replies and notes stay; the contact and what they wrote go)
            </label>
            <label className="check">
              <input type="radio" name="mode" value="delete" defaultChecked={erasureMode === 'delete'} /> Delete them
            </label>
          </fieldset>
          <ErrorList errors={actionData?.intent === 'erasure-mode' ? actionData.formErrors : undefined} />
          <div className="actions">
            <button type="submit" className="btn btn-primary" name="intent" value="erasure-mode">
              Save
            </button>
          </div>
        </Form>
      </SettingsPage>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Data Export', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
