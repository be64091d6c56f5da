import type { LoaderFunctionArgs } from '@remix-run/node';
import { exportResponsesCsv, readResultFilters } from '~/models/surveys/results.server';
import { getSurvey } from '~/models/surveys/surveys.server';
import { parseRowId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** Every response of the survey (under the results page's filters) as a streamed CSV download (ADR 060). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requirePermission(request, 'manage_surveys'));
  const id = parseRowId(params.surveyId);
  const survey = id ? await getSurvey({ accountId: ctx.account.id, id, viewer: { userId: ctx.user.id, isAdmin: ctx.isOrgAdmin } }) : undefined;
  if (!survey) throw new Response('Not Found', { status: 404 });
  const stream = await exportResponsesCsv({ accountId: ctx.account.id, surveyId: survey.id, filters: readResultFilters(new URL(request.url)) });
  const name = `survey-${survey.id}-responses-${new Date().toISOString().slice(0, 10)}.csv`;
  return new Response(stream, {
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'private, no-store' },
  });
}
