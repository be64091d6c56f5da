import type { LoaderFunctionArgs } from '@remix-run/node';
import { exportContactsCsv } from '~/models/crm/exports.server';
import { getSegment } from '~/models/crm/segments.server';
import { parseRouteId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';

/**
 * The account's contacts as a streamed CSV download: all of them, one contact segment (?segment=<id>), or the
 * list's filters (?q=, ?tag=). An unknown or foreign segment is a 404, never an unfiltered export.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'export_contacts');
  const url = new URL(request.url);
  const segmentParam = url.searchParams.get('segment');
  let segment = null;
  if (segmentParam) {
    const segmentId = parseRouteId(segmentParam);
    segment = segmentId === null ? undefined : await getSegment({ accountId: ctx.account.id, id: segmentId, kind: 'contact' });
    if (!segment) throw new Response('Not Found', { status: 404 });
  }
  const tagParam = url.searchParams.get('tag');
  const tagId = tagParam ? parseRouteId(tagParam) : null;
  if (tagParam && tagId === null) throw new Response('Bad tag', { status: 400 });
  const q = (url.searchParams.get('q') ?? '').slice(0, 200);
  const stamp = new Date().toISOString().slice(0, 10);
  const name = segment ? `contacts-segment-${segment.id}-${stamp}.csv` : `contacts-${stamp}.csv`;
  return new Response(exportContactsCsv({ accountId: ctx.account.id, q, tagId, segment }), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${name}"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
