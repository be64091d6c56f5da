import type { LoaderFunctionArgs } from '@remix-run/node';
import { exportAuditCsv, readAuditFilters } from '~/models/audit/audit-logs.server';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** The filtered audit log as a streamed CSV download, behind the same permission and plan flag as the page. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'view_audit_logs');
  await requireFeature(request, 'support/auditLogs', ctx);
  const filters = readAuditFilters(new URL(request.url));
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(exportAuditCsv({ accountId: ctx.account.id, filters }), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="audit-log-${stamp}.csv"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
