import type { LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { kb } = await requireKnowledgeBase(request, params.kbId);
  throw redirect(`/knowledgebase/${kb.id}/articles`);
}
