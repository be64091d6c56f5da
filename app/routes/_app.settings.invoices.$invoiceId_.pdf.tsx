import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireBilling } from '~/models/billing/access.server';
import { getInvoice } from '~/models/billing/billing.server';
import { parseRouteId } from '~/utils/route-id';
import { invoiceView, renderInvoicePdf } from '~/models/billing/invoice-view.server';

/** GET /settings/invoices/{id}/pdf: the invoice as a PDF download. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireBilling(request);
  const id = parseRouteId(params.invoiceId);
  const invoice = id === null ? null : await getInvoice({ accountId: ctx.account.id, invoiceId: id });
  if (!invoice) throw new Response('Invoice not found', { status: 404 });
  const view = invoiceView(invoice, { name: 'Parley' });
  const pdf = await renderInvoicePdf(view);
  return new Response(new Uint8Array(pdf), {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="invoice-${view.number}.pdf"`,
      'cache-control': 'private, no-store',
    },
  });
}
