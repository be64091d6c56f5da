import type { LoaderFunctionArgs } from '@remix-run/node';
import { exportTimeCsv } from '~/models/time-tracking/time-entries.server';
import { requireUser } from '~/utils/session.server';
import { readTimeFilters } from '~/models/time-tracking/schemas';

/** Every time entry that matches the report's filters, as a streamed CSV download. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const filters = readTimeFilters(new URL(request.url));
  return new Response(exportTimeCsv({ accountId: ctx.account.id, filters }), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="time-entries-${new Date().toISOString().slice(0, 10)}.csv"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
