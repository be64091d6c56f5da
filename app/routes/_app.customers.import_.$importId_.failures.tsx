import type { LoaderFunctionArgs } from '@remix-run/node';
import { getImport, importErrorsCsv, importHeader } from '~/models/crm/imports.server';
import { parseRouteId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';

/** The failed rows of one of the account's imports, as a CSV download (Row, Reason, then the file's columns). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'import_contacts');
  const id = parseRouteId(params.importId);
  const imp = id === null ? undefined : await getImport({ accountId: ctx.account.id, id });
  if (!imp) throw new Response('Not Found', { status: 404 });
  const header = await importHeader(imp);
  return new Response(importErrorsCsv({ accountId: ctx.account.id, importId: imp.id, header }), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="import-${imp.id}-failed-rows.csv"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
