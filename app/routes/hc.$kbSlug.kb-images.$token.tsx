import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireHelpAccount } from '~/models/knowledge-base/help-host.server';
import { kbImageResponse, readKbImage } from '~/models/knowledge-base/images.server';
import { findPublicKnowledgeBase } from '~/models/knowledge-base/public.server';

/** A knowledge-base image on the help host (`/kb-images/{token}` is rewritten here, ADR 056/058): this help centre's only. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  // Also here, not only in the layout: a data request may ask for this loader alone (ADR 157).
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled' });
  const found = await readKbImage({ accountId: account.id, knowledgeBaseId: kb.id, token: params.token ?? '' });
  if (!found) throw new Response('Not Found', { status: 404 });
  return kbImageResponse(found);
}
