import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { archiveFilename, archiveStream } from '~/models/knowledge-base/backup.server';
import { can, requireFeature, roleDenied } from '~/utils/session.server';

/** The knowledge base's backup as a streamed, gzipped download (ADR 059): plan feature backupRestore, customize_docs. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/backupRestore', ctx);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  return new Response(archiveStream({ ...scope, kind: 'backup' }), {
    headers: {
      'Content-Type': 'application/gzip',
      'Content-Disposition': `attachment; filename="${archiveFilename(kb, 'backup')}"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
