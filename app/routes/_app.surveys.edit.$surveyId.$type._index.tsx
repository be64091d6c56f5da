import type { LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** Section 2: the editor's index goes to the design step. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const id = parseRouteId(params.surveyId);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return redirect(`/surveys/edit/${id}/${params.type}/design`);
}
