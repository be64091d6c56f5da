import type { LoaderFunctionArgs } from '@remix-run/node';
import { readResponseFilters } from '~/models/forms/filters';
import { exportResponsesCsv, getForm } from '~/models/forms/forms.server';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** The form's responses under the list's filters, streamed as CSV (export_contacts: responses are contact data). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/enabled', await requirePermission(request, 'export_contacts'));
  const id = parseRouteId(params.id);
  const form = id ? await getForm({ accountId: ctx.account.id, id }) : undefined;
  if (!form) throw new Response('Not Found', { status: 404 });
  const stream = exportResponsesCsv({ accountId: ctx.account.id, form, ...readResponseFilters(new URL(request.url)) });
  const name = `form-${form.id}-responses-${new Date().toISOString().slice(0, 10)}.csv`;
  return new Response(stream, {
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'private, no-store' },
  });
}
