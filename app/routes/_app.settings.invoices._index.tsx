import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { requireBilling } from '~/models/billing/access.server';
import { listInvoices, syncInvoices } from '~/models/billing/billing.server';
import { formatMoney, invoiceNumber } from '~/models/billing/money';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser } from '~/utils/session.server';

const PAGE_SIZE = 20;

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireBilling(request);
  const page = readPage(new URL(request.url));
  // The provider's invoices are mirrored by its webhooks; a page view catches up with any that were missed.
  if (page === 1) await syncInvoices({ accountId: ctx.account.id }).catch(() => undefined);
  const { rows, total } = await listInvoices({ accountId: ctx.account.id, page, pageSize: PAGE_SIZE });
  return {
    user: publicUser(ctx),
    page,
    total,
    invoices: rows.map((i) => ({ id: i.id, number: invoiceNumber(i.number), issuedAt: i.issuedAt.toISOString(), status: i.status, total: formatMoney(i.total, i.currency) })),
  };
}

export const handle = { breadcrumb: 'Invoices' };

export default function Invoices() {
  const { user, invoices, page, total } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title="Invoices" subHeader="Every invoice of your subscription, to view, print or download as PDF.">
      {invoices.length === 0 ? (
        <p className="muted">No invoices yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="invoices">
            <thead>
              <tr>
                <th>Number</th>
                <th>Date</th>
                <th>Status</th>
                <th>Total</th>
                <th>PDF</th>
              </tr>
            </thead>
            <tbody>
              {invoices.map((i) => (
                <tr key={i.id}>
                  <td>
                    <Link to={`/settings/invoices/${i.id}`}>{i.number}</Link>
                  </td>
                  <td>{formatDate(i.issuedAt, user)}</td>
                  <td>
                    <span className={`pill${i.status === 'paid' ? ' pill-ok' : ' pill-warn'}`}>{i.status}</span>
                  </td>
                  <td>{i.total}</td>
                  <td>
                    <a href={`/settings/invoices/${i.id}/pdf`} download>
                      Download<span className="visually-hidden"> {i.number} as PDF</span>
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pageSize={PAGE_SIZE} total={total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Invoices', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
