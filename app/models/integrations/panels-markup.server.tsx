import { Fragment, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { HUBSPOT_LEAD_STATUSES, leadStatusLabel } from './schemas';

/**
 * The integrations' side panels as plain HTML made on the server (ADR 078): links and forms without client script,
 * so the conversation page's JavaScript does not grow with them. React escapes every text; provider links must be
 * http(s).
 */
type Order = { id: number; name: string; createdAt: string; financialStatus: string; fulfillmentStatus: string; cancelledAt: string | null; totalPrice: string; currency: string };
type Shopify =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string; shop: string }
  | {
      state: 'ok';
      shop: string;
      customer: { id: number; firstName: string; lastName: string; email: string; ordersCount: number; totalSpent: string; currency: string } | null;
      orders: Order[];
    };
type Github =
  | { connected: false }
  | {
      connected: true;
      login: string;
      links: { id: number; externalId: string; title: string; url: string; status: string; reopenOnClose: boolean }[];
      error: string | null;
    }
  | null;
type Bigcommerce =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string }
  | {
      state: 'ok';
      store: string;
      customer: { id: number; firstName: string; lastName: string; email: string } | null;
      orders: { id: number; createdAt: string; status: string; statusId: number; total: string; currency: string; itemCount: number; canRefund?: boolean }[];
    };
type Hubspot =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string }
  | {
      state: 'ok';
      portal: string;
      contact: { id: string; name: string; email: string; leadStatus: string; company: { id: string; name: string } | null } | null;
      deals: { id: string; name: string; stage: string; pipeline: string; closeDate: string; amount: string; owner: string }[];
    };
type Pipedrive = import('./pipedrive/pipedrive.server').PipedrivePanel;
type Tasks = { connected: false } | { connected: true; links: { id: number; externalId: string; title: string; url: string; status: string }[]; error: string | null } | null | undefined;
export type PanelsData = { canAct: boolean; shopify: Shopify; github: Github; asana?: Tasks; clickup?: Tasks; bigcommerce?: Bigcommerce; hubspot?: Hubspot; pipedrive?: Pipedrive } | null;

const day = (iso: string) => iso.slice(0, 10);
const safeHref = (u: string) => (/^https?:\/\//i.test(u) ? u : '#');

export function renderIntegrationPanels(data: PanelsData, conversationId?: number) {
  return data ? renderToStaticMarkup(<IntegrationPanels data={data} conversationId={conversationId} />) : '';
}

function IntegrationPanels({ data, conversationId }: { data: PanelsData; conversationId?: number }) {
  if (!data) return null;
  const actions = conversationId ? `/inbox/${conversationId}/integrations` : null;
  const s = data.shopify;
  const g = data.github;
  return (
    <>
      {s.state !== 'not-connected' ? (
        <section className="side-card" data-testid="shopify-panel">
          <h2>Shopify</h2>
          <StoreLookupNotes store="Shopify" lookup={s} />
          {s.state === 'ok' && s.customer ? (
            <>
              <p data-testid="shopify-customer">
                <strong>{`${s.customer.firstName} ${s.customer.lastName}`}</strong>
                <br />
                {`${s.customer.ordersCount} orders · ${s.customer.totalSpent} ${s.customer.currency} spent`}
              </p>
              {s.orders.length === 0 ? <p className="muted">No orders.</p> : null}
              <ul className="runs">
                {s.orders.map((o) => (
                  <li key={o.id} data-testid="shopify-order">
                    <strong>{o.name}</strong> {`· ${o.totalPrice} ${o.currency} · ${day(o.createdAt)}`}
                    <br />
                    <span className="pill">{o.cancelledAt ? 'cancelled' : o.financialStatus.replaceAll('_', ' ')}</span>{' '}
                    <span className="pill">{o.fulfillmentStatus.replaceAll('_', ' ')}</span>
                    {data.canAct && actions ? (
                      <>
                        {' '}
                        {o.cancelledAt ? null : <a href={`${actions}?order=${o.id}&do=cancel`}>Cancel</a>}{' '}
                        {o.financialStatus === 'refunded' ? null : <a href={`${actions}?order=${o.id}&do=refund`}>Refund</a>}
                      </>
                    ) : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
      ) : null}
      {data.bigcommerce && data.bigcommerce.state !== 'not-connected' ? <BigcommerceCard b={data.bigcommerce} canAct={data.canAct} actions={actions} /> : null}
      {data.hubspot && data.hubspot.state !== 'not-connected' ? <HubspotCard h={data.hubspot} canAct={data.canAct} actions={actions} /> : null}
      {data.pipedrive && data.pipedrive.state !== 'not-connected' ? <PipedriveCard p={data.pipedrive} canAct={data.canAct} actions={actions} /> : null}
      {g?.connected ? (
        <section className="side-card" data-testid="github-panel">
          <h2>GitHub</h2>
          {g.error ? (
            <p className="field-error" role="alert">
              {g.error}
            </p>
          ) : null}
          {g.links.length === 0 ? <p className="muted">No linked issues.</p> : null}
          <ul className="runs">
            {g.links.map((l) => (
              <li key={l.id} data-testid="github-issue">
                <a href={safeHref(l.url)} target="_blank" rel="noreferrer noopener">
                  {l.externalId}
                </a>{' '}
                <span className="pill">{l.status}</span> {l.title}
              </li>
            ))}
          </ul>
          {actions && data.canAct ? (
            <form method="post" action={actions}>
              <a href={`${actions}?github=create`}>Create or link an issue</a>{' '}
              {g.links.length ? (
                <button type="submit" className="btn" name="intent" value="github-refresh">
                  Refresh status
                </button>
              ) : null}
            </form>
          ) : null}
        </section>
      ) : null}
      <TaskPanel provider="asana" label="Asana" data={data.asana} canAct={data.canAct} conversationId={conversationId} />
      <TaskPanel provider="clickup" label="ClickUp" data={data.clickup} canAct={data.canAct} conversationId={conversationId} />
    </>
  );
}

/** Asana and ClickUp (ADR 100): the linked tasks with their status, and the way to create, link and refresh. */
function TaskPanel({ provider, label, data, canAct, conversationId }: { provider: string; label: string; data: Tasks; canAct: boolean; conversationId?: number }) {
  if (!data?.connected) return null;
  const actions = conversationId ? `/inbox/${conversationId}/tasks/${provider}` : null;
  return (
    <section className="side-card" data-testid={`${provider}-panel`}>
      <h2>{label}</h2>
      {data.error ? (
        <p className="field-error" role="alert">
          {data.error}
        </p>
      ) : null}
      {data.links.length === 0 ? <p className="muted">No linked tasks.</p> : null}
      <ul className="runs">
        {data.links.map((l) => (
          <li key={l.id} data-testid={`${provider}-task`}>
            <a href={safeHref(l.url)} target="_blank" rel="noreferrer noopener">
              {l.title || l.externalId}
            </a>{' '}
            <span className="pill">{l.status === 'closed' ? (provider === 'asana' ? 'completed' : 'closed') : 'open'}</span>
          </li>
        ))}
      </ul>
      {actions && canAct ? (
        <form method="post" action={actions}>
          <a href={actions}>Create or link a task</a>{' '}
          {data.links.length ? (
            <button type="submit" className="btn" name="intent" value="refresh">
              Refresh status
            </button>
          ) : null}
        </form>
      ) : null}
    </section>
  );
}

/** BigCommerce's totals come with four decimal places ("49.9000"): shown with two. */
const money = (total: string) => (/^-?\d+(\.\d+)?$/.test(total) ? Number(total).toFixed(2) : total);

/** BigCommerce's v2 dates are RFC 2822 ("Tue, 05 Mar 2019 21:26:48 +0000"). */
const rfcDay = (text: string) => {
  const t = Date.parse(text);
  return Number.isNaN(t) ? text.slice(0, 16) : new Date(t).toISOString().slice(0, 10);
};

/** A store card's lookup outcome when it has no customer to show: no email, the store's error, or no such customer. */
function StoreLookupNotes({ store, lookup }: { store: string; lookup: { state: 'not-connected' | 'no-email' } | { state: 'error'; message: string } | { state: 'ok'; customer: unknown } }) {
  if (lookup.state === 'no-email') return <p className="muted">The contact has no email address to look up.</p>;
  if (lookup.state === 'error')
    return (
      <p className="field-error" role="alert">
        {lookup.message}
      </p>
    );
  if (lookup.state !== 'ok') return null;
  return lookup.customer ? null : <p className="muted">{`No ${store} customer with this email.`}</p>;
}

function BigcommerceCard({ b, canAct, actions }: { b: Bigcommerce; canAct: boolean; actions: string | null }) {
  return (
    <section className="side-card" data-testid="bigcommerce-panel">
      <h2>BigCommerce</h2>
      <StoreLookupNotes store="BigCommerce" lookup={b} />
      {b.state === 'ok' && b.customer ? (
        <>
          <p data-testid="bigcommerce-customer">
            <strong>{`${b.customer.firstName} ${b.customer.lastName}`}</strong>
            <br />
            {`Customer #${b.customer.id} at ${b.store}`}
          </p>
          {b.orders.length === 0 ? <p className="muted">No orders.</p> : null}
          <ul className="runs">
            {b.orders.map((o) => (
              <li key={o.id} data-testid="bigcommerce-order">
                <strong>{`#${o.id}`}</strong> {`· ${money(o.total)} ${o.currency} · ${o.itemCount} item${o.itemCount === 1 ? '' : 's'}`}
                {o.createdAt ? ` · ${rfcDay(o.createdAt)}` : ''}
                <br />
                <span className="pill">{o.status}</span>
                {canAct && actions && o.statusId !== 5 ? (
                  <>
                    {' '}
                    <a href={`${actions}?bcorder=${o.id}&do=cancel`}>Cancel</a>
                  </>
                ) : null}
                {canAct && actions && o.canRefund ? (
                  <>
                    {' '}
                    <a href={`${actions}?bcorder=${o.id}&do=refund`}>Refund</a>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** What the HubSpot and Pipedrive cards show: the record found by email, its deals, and the actions (ADR 099). */
type CrmView = {
  provider: 'hubspot' | 'pipedrive';
  label: string;
  state: 'no-email' | 'error' | 'ok';
  message: string;
  notFound: string;
  record: { name: string; detail: string } | null;
  recordTestId: string;
  deals: { id: string | number; title: string; after: string; pills: string[]; line: string }[];
  /** Asked for before the record is created (HubSpot's lead status). */
  newRecordFields?: ReactNode;
  create: { intent: string; label: string };
  dealLink: string;
  log: { intent: string; label: string };
};

function CrmCard({ v, canAct, actions }: { v: CrmView; canAct: boolean; actions: string | null }) {
  return (
    <section className="side-card" data-testid={`${v.provider}-panel`}>
      <h2>{v.label}</h2>
      {v.state === 'no-email' ? <p className="muted">The contact has no email address to look up.</p> : null}
      {v.state === 'error' ? (
        <p className="field-error" role="alert">
          {v.message}
        </p>
      ) : null}
      {v.state === 'ok' && !v.record ? <p className="muted">{v.notFound}</p> : null}
      {v.state === 'ok' && v.record ? (
        <>
          <p data-testid={v.recordTestId}>
            <strong>{v.record.name}</strong>
            <br />
            {v.record.detail}
          </p>
          {v.deals.length === 0 ? <p className="muted">No deals.</p> : null}
          <ul className="runs">
            {v.deals.map((d) => (
              <li key={d.id} data-testid={`${v.provider}-deal`}>
                <strong>{d.title}</strong>
                {d.after}
                <br />
                {d.pills.map((p, i) => (
                  <Fragment key={i}>
                    <span className="pill">{p}</span>{' '}
                  </Fragment>
                ))}
                {d.line}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {v.state === 'ok' && canAct && actions ? (
        <form method="post" action={actions}>
          {v.record ? null : (
            <>
              {v.newRecordFields}
              <button type="submit" className="btn" name="intent" value={v.create.intent}>
                {v.create.label}
              </button>
            </>
          )}{' '}
          <a href={`${actions}?${v.provider}=deal`}>{v.dealLink}</a>{' '}
          <button type="submit" className="btn" name="intent" value={v.log.intent}>
            {v.log.label}
          </button>
        </form>
      ) : null}
    </section>
  );
}

const crmState = (x: { state: string; message?: string }) => ({ state: x.state as CrmView['state'], message: x.state === 'error' ? (x.message ?? '') : '' });

function HubspotCard({ h, canAct, actions }: { h: Hubspot; canAct: boolean; actions: string | null }) {
  const ok = h.state === 'ok' ? h : null;
  const c = ok?.contact ?? null;
  const v: CrmView = {
    provider: 'hubspot',
    label: 'HubSpot',
    ...crmState(h as { state: string; message?: string }),
    notFound: 'No HubSpot contact with this email.',
    recordTestId: 'hubspot-contact',
    record: c ? { name: c.name, detail: `${c.company ? `Company: ${c.company.name} (company ID ${c.company.id})` : 'No company'}${c.leadStatus ? ` · Lead status: ${leadStatusLabel(c.leadStatus)}` : ''}` } : null,
    deals: (ok?.deals ?? []).map((d) => ({
      id: d.id,
      title: d.name,
      after: d.amount ? ` · ${d.amount}` : '',
      pills: [d.stage],
      line: `${d.pipeline}${d.closeDate ? ` · closes ${d.closeDate}` : ''}${d.owner ? ` · ${d.owner}` : ''}`,
    })),
    newRecordFields: (
      <div className="field">
        <label htmlFor="hubspot-lead-status">Lead status</label>
        <select id="hubspot-lead-status" name="leadStatus" defaultValue="NEW">
          {HUBSPOT_LEAD_STATUSES.map((s) => (
            <option key={s} value={s}>
              {leadStatusLabel(s)}
            </option>
          ))}
        </select>
      </div>
    ),
    create: { intent: 'hubspot-contact', label: 'Create contact and company' },
    dealLink: 'Create a deal',
    log: { intent: 'hubspot-log', label: 'Log conversation' },
  };
  return <CrmCard v={v} canAct={canAct} actions={actions} />;
}

function PipedriveCard({ p, canAct, actions }: { p: Pipedrive; canAct: boolean; actions: string | null }) {
  const ok = p.state === 'ok' ? p : null;
  const person = ok?.person ?? null;
  const v: CrmView = {
    provider: 'pipedrive',
    label: 'Pipedrive',
    ...crmState(p as { state: string; message?: string }),
    notFound: 'No Pipedrive person with this email.',
    recordTestId: 'pipedrive-person',
    record: person ? { name: person.name, detail: `Person ID ${person.id}${person.orgId ? ` · ${person.orgName} (organization ID ${person.orgId})` : ' · No organization'}` } : null,
    deals: (ok?.deals ?? []).map((d) => ({
      id: d.id,
      title: d.title,
      after: `${d.value ? ` · ${d.value}` : ''} · deal ID ${d.id}`,
      pills: [d.stage, d.status],
      line: `${d.pipeline}${d.user ? ` · ${d.user}` : ''}`,
    })),
    create: { intent: 'pipedrive-person', label: 'Create person and organization' },
    dealLink: 'Create a Pipedrive deal',
    log: { intent: 'pipedrive-log', label: 'Log as activity' },
  };
  return <CrmCard v={v} canAct={canAct} actions={actions} />;
}
