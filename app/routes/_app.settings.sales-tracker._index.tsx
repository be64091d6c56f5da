import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { conversionCounts, listSaleTrackers } from '~/models/conversions/conversions.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requireUser } from '~/utils/session.server';

/** Settings → Conversions → Sales Tracker (ADR 104). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/salesTracker', ctx);
  const [trackers, counts] = await Promise.all([listSaleTrackers({ accountId: ctx.account.id }), conversionCounts({ accountId: ctx.account.id })]);
  return {
    trackers: trackers.map((t) => ({
      id: t.id,
      name: t.name,
      currency: t.currency,
      active: t.active,
      attributionDays: t.attributionDays,
      sales: counts.trackers.get(t.id) ?? 0,
    })),
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export default function SalesTrackers() {
  const { trackers, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Sales Tracker"
      subHeader="Record the sales your site makes and see which conversations led to them."
      learnMore="/help-center/analytics#sales-tracker"
      locked={locked}
      actions={
        <Link to="/settings/sales-tracker/add" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Add Sales Tracker
        </Link>
      }
    >
      {trackers.length === 0 ? (
        <p className="muted" data-testid="empty">
          No sales trackers yet.
        </p>
      ) : (
        <table className="table" data-testid="trackers">
          <thead>
            <tr>
              <th>Name</th>
              <th>Currency</th>
              <th>Attribution window</th>
              <th>Sales</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {trackers.map((t) => (
              <tr key={t.id}>
                <td>
                  <Link to={`/settings/sales-tracker/${t.id}`}>{t.name}</Link>
                </td>
                <td>{t.currency}</td>
                <td>{t.attributionDays} days</td>
                <td>{t.sales}</td>
                <td>{t.active ? 'Active' : 'Paused'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Reporting a sale from your site</h2>
      <p>On the page that confirms an order, once the messenger has loaded:</p>
      <pre>
        <code>{"Parley.track('sale', { amount: 49.90, currency: 'EUR', orderId: 'A-1042' })"}</code>
      </pre>
      <p className="muted">An order id is counted once, however often the page is reloaded.</p>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Sales Tracker', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
