import { parseRouteId } from '~/utils/route-id';
import { canUseFeature, requireFeature, type AppContext } from '~/utils/session.server';
import { getKnowledgeBase } from './knowledge-bases.server';

/**
 * The guard of every route under /knowledgebase/{id}: the signed-in user of an account whose plan has the
 * knowledge base, and that account's knowledge base named by the route (404 for another account's).
 */
export async function requireKnowledgeBase(request: Request, kbIdParam: string | undefined) {
  const ctx = await requireFeature(request, 'knowledgeBase/enabled');
  const id = parseRouteId(kbIdParam);
  const kb = id ? await getKnowledgeBase({ accountId: ctx.account.id, id }) : undefined;
  if (!kb) throw new Response('Not Found', { status: 404 });
  return {
    ctx,
    kb,
    scope: { accountId: ctx.account.id, knowledgeBaseId: kb.id },
    who: { accountId: ctx.account.id, knowledgeBaseId: kb.id, actorId: ctx.user.id },
  };
}

export function kbFeatures(ctx: AppContext) {
  return {
    versionControl: canUseFeature(ctx, 'knowledgeBase/versionControl'),
  };
}
