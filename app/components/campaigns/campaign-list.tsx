import { Form, Link } from '@remix-run/react';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { TableHead } from '~/components/ui/list-table';
import { Pager } from '~/components/ui/pager';
import {
  CAMPAIGN_KINDS,
  CAMPAIGN_STATUSES,
  campaignListPath,
  KIND_LABELS,
  LIST_TITLES,
  LISTED_KINDS,
  STATUS_LABELS,
  type CampaignKind,
  type CampaignStatus,
} from '~/models/campaigns/constants';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDateTime, type DatePrefs } from '~/utils/format';

type Row = {
  id: number;
  kind: CampaignKind;
  name: string;
  status: CampaignStatus;
  scheduledAt: string | Date | null;
  recipientCount: number | null;
  sentCount: number;
  openedCount: number;
  clickedCount: number;
  repliedCount: number;
  segmentName: string | null;
};

export type CampaignListProps = {
  q: string;
  filters: { kind?: CampaignKind; status?: CampaignStatus; from?: string; to?: string };
  list: { rows: Row[]; total: number; page: number; pageSize: number };
  /** The kind of a kind's own list (campaigns/message, /email, /sms); null on all campaigns. */
  fixedKind: CampaignKind | null;
  locked: boolean;
  allowed: Record<CampaignKind, boolean>;
  user: DatePrefs;
  error?: string;
};

/**
 * The one campaign list: all campaigns at /campaigns, or one kind's at /campaigns/{kind} (section 2). Tabs lead to
 * each list; a kind's list has no kind filter and creates that kind straight away.
 */
export function CampaignList({ q, filters, list, fixedKind, locked, allowed, user, error }: CampaignListProps) {
  const here = campaignListPath(fixedKind);
  const filtered = Boolean(q || (!fixedKind && filters.kind) || filters.status || filters.from || filters.to);
  const creatable = fixedKind ? ([fixedKind] as const) : (['message', 'email', 'sms', 'push'] as const);
  return (
    <section className="page stack campaigns-list">
      <header className="row wrap">
        <h1>{fixedKind && fixedKind !== 'push' ? LIST_TITLES[fixedKind] : 'Campaigns'}</h1>
        <span className="muted" data-testid="campaign-count">
          {list.total}
        </span>
        <div className="spacer" />
        {allowed.push && !fixedKind ? (
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
              {creatable.map((kind) => (
                <li key={kind}>
                  {allowed[kind] ? (
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
      <nav className="tabs row wrap" aria-label="Campaign lists">
        <Link to="/campaigns" aria-current={fixedKind ? undefined : 'page'}>
          All campaigns
        </Link>
        {LISTED_KINDS.filter((kind) => allowed[kind]).map((kind) => (
          <Link key={kind} to={`/campaigns/${kind}`} aria-current={fixedKind === kind ? 'page' : undefined} data-testid={`list-${kind}`}>
            {KIND_LABELS[kind]}
          </Link>
        ))}
      </nav>
      <p className="muted">Email and SMS campaigns to your CRM segments, web push to your push segments, with templates, schedules, unsubscribe and tracking.</p>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <Form method="get" action={here} className="filters row wrap" role="search" aria-label="Filter campaigns">
        <input type="search" name="q" defaultValue={q} aria-label="Search campaigns" placeholder="Search campaigns" maxLength={100} />
        {fixedKind ? null : (
          <select name="kind" defaultValue={filters.kind ?? ''} aria-label="Kind">
            <option value="">All kinds</option>
            {CAMPAIGN_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        )}
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
          <Link to={here} className="btn btn-link">
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
                      <DeleteConfirm
                        id={`campaign-${c.id}`}
                        action={fixedKind ? here : `${here}?index`}
                        fields={{ id: String(c.id) }}
                        label={<span aria-label={`Delete ${c.name}`}>Delete</span>}
                      />
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
