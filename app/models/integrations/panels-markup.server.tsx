import { renderToStaticMarkup } from 'react-dom/server';

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
  | { state: 'ok'; shop: string; customer: { id: number; firstName: string; lastName: string; email: string; ordersCount: number; totalSpent: string; currency: string } | null; orders: Order[] };
type Github = { connected: false } | { connected: true; login: string; links: { id: number; externalId: string; title: string; url: string; status: string; reopenOnClose: boolean }[]; error: string | null } | null;
type Tasks = { connected: false } | { connected: true; links: { id: number; externalId: string; title: string; url: string; status: string }[]; error: string | null } | null | undefined;
export type PanelsData = { canAct: boolean; shopify: Shopify; github: Github; asana?: Tasks; clickup?: Tasks } | null;

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
          {s.state === 'no-email' ? <p className="muted">The contact has no email address to look up.</p> : null}
          {s.state === 'error' ? (
            <p className="field-error" role="alert">
              {s.message}
            </p>
          ) : null}
          {s.state === 'ok' && !s.customer ? <p className="muted">No Shopify customer with this email.</p> : null}
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
                    <span className="pill">{o.cancelledAt ? 'cancelled' : o.financialStatus.replaceAll('_', ' ')}</span> <span className="pill">{o.fulfillmentStatus.replaceAll('_', ' ')}</span>
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
