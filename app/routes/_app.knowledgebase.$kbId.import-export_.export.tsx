import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { archiveFilename, archiveStream } from '~/models/knowledge-base/backup.server';
import { can, requireFeature, roleDenied } from '~/utils/session.server';

/** The export file (docs/knowledge-base-format.md), streamed: plan feature importExport, permission customize_docs. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/importExport', ctx);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  return new Response(archiveStream({ ...scope, kind: 'export' }), {
    headers: {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="${archiveFilename(kb, 'export')}"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
