import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { SettingsPage } from '~/components/ui/settings-page';
import { requireBilling } from '~/models/billing/access.server';
import { getInvoice } from '~/models/billing/billing.server';
import { parseRouteId } from '~/utils/route-id';
import { invoiceView } from '~/models/billing/invoice-view.server';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser } from '~/utils/session.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireBilling(request);
  const id = parseRouteId(params.invoiceId);
  const invoice = id === null ? null : await getInvoice({ accountId: ctx.account.id, invoiceId: id });
  if (!invoice) throw new Response('Invoice not found', { status: 404 });
  return { user: publicUser(ctx), invoice: invoiceView(invoice, { name: 'Parley' }) };
}

export const handle = { breadcrumb: (d: { invoice: { number: string } } | undefined) => (d ? d.invoice.number : null) };

/** One invoice, printable as it is (the print stylesheet hides the shell), with its PDF. */
export default function Invoice() {
  const { user, invoice: v } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title={`Invoice ${v.number}`} subHeader={`Issued ${formatDate(v.issuedAt, user)}`}>
      <article className="stack invoice" data-testid="invoice">
        <p>
          Status: <span className={`pill${v.status === 'paid' ? ' pill-ok' : ' pill-warn'}`}>{v.status}</span>
          {v.paidAt ? ` · Paid ${formatDate(v.paidAt, user)}` : ''}
        </p>
        <div className="row" style={{ alignItems: 'flex-start', gap: '3rem' }}>
          <div>
            <strong>From</strong>
            <p>{v.seller}</p>
          </div>
          <div>
            <strong>Billed to</strong>
            {v.billedTo.length === 0 ? <p className="muted">No billing address was saved.</p> : v.billedTo.map((l) => <p key={l} style={{ margin: 0 }}>{l}</p>)}
            {v.taxId ? <p>Tax ID: {v.taxId}</p> : null}
          </div>
        </div>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Description</th>
                <th>Period</th>
                <th>Qty</th>
                <th>Amount</th>
              </tr>
            </thead>
            <tbody>
              {v.lines.map((l, i) => (
                <tr key={i}>
                  <td>{l.description}</td>
                  <td>{l.period}</td>
                  <td>{l.quantity}</td>
                  <td>{l.amount}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th colSpan={3}>Total</th>
                <td data-testid="invoice-total">{v.total}</td>
              </tr>
              <tr>
                <th colSpan={3}>Paid</th>
                <td>{v.amountPaid}</td>
              </tr>
            </tfoot>
          </table>
        </div>
        <p className="row no-print">
          <a className="btn btn-primary" href={`/settings/invoices/${v.id}/pdf`} download>
            Download PDF
          </a>
          <Link to="/settings/invoices" className="btn">
            All invoices
          </Link>
        </p>
      </article>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data ? `Invoice ${data.invoice.number}` : 'Invoice', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
