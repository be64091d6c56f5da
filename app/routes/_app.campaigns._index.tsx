import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { TableHead } from '~/components/ui/list-table';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { Pager, readPage } from '~/components/ui/pager';
import { CampaignStateError, deleteCampaign, listCampaigns } from '~/models/campaigns/campaigns.server';
import { CAMPAIGN_KINDS, CAMPAIGN_STATUSES, CAMPAIGN_TOASTS, KIND_LABELS, STATUS_LABELS, type CampaignKind, type CampaignStatus } from '~/models/campaigns/constants';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, canUseFeature, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/campaigns';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** getFilters: kind, status and a created-date range; search by name; 50 a page (section 9). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/enabled', await requireUser(request));
  const url = new URL(request.url);
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 100);
  const kind = url.searchParams.get('kind');
  const status = url.searchParams.get('status');
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  const filters = {
    kind: (CAMPAIGN_KINDS as readonly string[]).includes(kind ?? '') ? (kind as CampaignKind) : undefined,
    status: (CAMPAIGN_STATUSES as readonly string[]).includes(status ?? '') ? (status as CampaignStatus) : undefined,
    from: DATE.test(from) ? from : undefined,
    to: DATE.test(to) ? to : undefined,
  };
  const list = await listCampaigns({
    accountId: ctx.account.id,
    q,
    kind: filters.kind,
    status: filters.status,
    from: filters.from ? new Date(`${filters.from}T00:00:00Z`) : undefined,
    to: filters.to ? new Date(new Date(`${filters.to}T00:00:00Z`).getTime() + 86_400_000) : undefined,
    page: readPage(url),
  });
  return {
    q,
    filters,
    list,
    locked: !can(ctx, 'manage_campaigns'),
    message: canUseFeature(ctx, 'campaigns/chatMessaging'),
    email: canUseFeature(ctx, 'campaigns/emailCampaigns'),
    sms: canUseFeature(ctx, 'campaigns/smsCampaigns'),
    push: canUseFeature(ctx, 'campaigns/webPush'),
    user: publicUser(ctx),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/enabled', await requirePermission(request, 'manage_campaigns'));
  const form = await request.formData();
  if (form.get('intent') !== 'delete') throw new Response('Unknown intent', { status: 400 });
  const id = parseRowId(form.get('id'));
  if (!id) throw new Response('Bad Request', { status: 400 });
  try {
    if (!(await deleteCampaign({ accountId: ctx.account.id, actorId: ctx.user.id, id }))) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof CampaignStateError) return data({ error: err.message }, { status: 409 });
    throw err;
  }
  return redirectWithToast(LIST, { type: 'info', text: CAMPAIGN_TOASTS.deleted });
}

export default function CampaignList() {
  const { q, filters, list, locked, message, email, sms, push, user } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const filtered = Boolean(q || filters.kind || filters.status || filters.from || filters.to);
  return (
    <section className="page stack campaigns-list">
      <header className="row wrap">
        <h1>Campaigns</h1>
        <span className="muted" data-testid="campaign-count">
          {list.total}
        </span>
        <div className="spacer" />
        {push ? (
          <Link to="/campaigns/push-segment" className="btn" data-testid="push-segments">
            Push segments
          </Link>
        ) : null}
        {locked ? (
          <span className="btn" aria-disabled="true" title={ROLE_LOCKED_MESSAGE} data-testid="create-campaign-denied">
            <DeniedBadge kind="role" /> Create Campaign
          </span>
        ) : (
          <details className="type-picker">
            <summary className="btn btn-primary">Create Campaign</summary>
            <ul className="menu-items" aria-label="Campaign type">
              {(
                [
                  ['message', message],
                  ['email', email],
                  ['sms', sms],
                  ['push', push],
                ] as const
              ).map(([kind, allowed]) => (
                <li key={kind}>
                  {allowed ? (
                    <Link to={`/campaigns/${kind}/new`} data-testid={`new-${kind}`}>
                      {KIND_LABELS[kind]}
                    </Link>
                  ) : (
                    <span aria-disabled="true">
                      <DeniedBadge kind="feature" /> {KIND_LABELS[kind]}
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </details>
        )}
      </header>
      <p className="muted">Email and SMS campaigns to your CRM segments, web push to your push segments, with templates, schedules, unsubscribe and tracking.</p>
      {actionData && 'error' in actionData ? (
        <p className="field-error" role="alert">
          {actionData.error}
        </p>
      ) : null}
      <Form method="get" className="filters row wrap" role="search" aria-label="Filter campaigns">
        <input type="search" name="q" defaultValue={q} aria-label="Search campaigns" placeholder="Search campaigns" maxLength={100} />
        <select name="kind" defaultValue={filters.kind ?? ''} aria-label="Kind">
          <option value="">All kinds</option>
          {CAMPAIGN_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
        <select name="status" defaultValue={filters.status ?? ''} aria-label="Status">
          <option value="">All statuses</option>
          {CAMPAIGN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
        <label className="row">
          From <input type="date" name="from" defaultValue={filters.from ?? ''} />
        </label>
        <label className="row">
          To <input type="date" name="to" defaultValue={filters.to ?? ''} />
        </label>
        <button type="submit" className="btn">
          Search
        </button>
        {filtered ? (
          <Link to={LIST} className="btn btn-link">
            Clear
          </Link>
        ) : null}
      </Form>
      {list.total === 0 ? (
        <div className="card empty-state" data-testid="no-campaigns">
          <h2>{filtered ? 'No campaigns match your search.' : 'No campaigns yet'}</h2>
          <p className="muted">Send an email to a segment of your contacts: create a segment in CRM, then an email campaign here.</p>
        </div>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="campaigns">
            <TableHead headers={['Name', 'Kind', 'Status', 'Audience', 'Schedule', 'Sent', 'Opened', 'Clicked', 'Replied', { hidden: 'Actions' }]} />
            <tbody>
              {list.rows.map((c) => (
                <tr key={c.id} data-testid={`campaign-${c.id}`}>
                  <td>
                    <Link to={`/campaigns/${c.kind}/${c.id}`}>{c.name}</Link>
                  </td>
                  <td>{KIND_LABELS[c.kind]}</td>
                  <td>
                    <span className={`pill status-${c.status}`} data-testid="campaign-status">
                      {STATUS_LABELS[c.status]}
                    </span>
                  </td>
                  <td>{c.segmentName ?? '—'}</td>
                  <td>{c.scheduledAt ? formatDateTime(c.scheduledAt, user) : '—'}</td>
                  <td>
                    {c.sentCount}
                    {c.recipientCount ? ` / ${c.recipientCount}` : ''}
                  </td>
                  <td>{c.openedCount}</td>
                  <td>{c.clickedCount}</td>
                  <td>{c.repliedCount}</td>
                  <td>
                    {locked || c.status === 'sending' ? null : (
                      <DeleteConfirm id={`campaign-${c.id}`} action={`${LIST}?index`} fields={{ id: String(c.id) }} label={<span aria-label={`Delete ${c.name}`}>Delete</span>} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
