import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ColumnMappingTable } from '~/components/crm/column-mapping';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList } from '~/components/ui/forms';
import { IMPORT_FIELD_LABELS } from '~/models/crm/imports-constants';
import { SURVEY_TOASTS } from '~/models/surveys/constants';
import { RecipientListMappingSchema } from '~/models/surveys/email-schemas';
import { mapRecipientList, previewRecipientList } from '~/models/surveys/email-surveys.server';
import { SurveyInputError } from '~/models/surveys/folders.server';
import { getSurvey } from '~/models/surveys/surveys.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * The column mapping of an email survey's uploaded recipient list (step 2 of the upload): the contact import's
 * mapping table, with the fields a list uses (Email, First name, Last name). manage_surveys, the plan area and the
 * survey (in a folder the user sees) first.
 */
async function guard(request: Request, params: LoaderFunctionArgs['params']) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const id = parseRouteId(params.surveyId);
  const listId = parseRouteId(params.listId);
  const survey = id && listId ? await getSurvey({ accountId: ctx.account.id, id, viewer: { userId: ctx.user.id, isAdmin: ctx.isOrgAdmin } }) : undefined;
  if (!survey || survey.channel !== 'email' || !listId) throw new Response('Not Found', { status: 404 });
  const found = await previewRecipientList({ accountId: ctx.account.id, surveyId: survey.id, listId });
  if (!found) throw new Response('Not Found', { status: 404 });
  return { ctx, survey, ...found };
}

const targetUrl = (surveyId: number) => `/surveys/edit/${surveyId}/email/target`;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { survey, list, preview } = await guard(request, params);
  return {
    survey: { id: survey.id, name: survey.name, draft: survey.status === 'draft' },
    list: { id: list.id, name: list.name, fileName: list.fileName, status: list.status, successCount: list.successCount, failedCount: list.failedCount },
    preview,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, survey, list } = await guard(request, params);
  const formData = await request.formData();
  if (formData.get('intent') !== 'map') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: RecipientListMappingSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    const result = await mapRecipientList({ accountId: ctx.account.id, surveyId: survey.id, listId: list.id, actorId: ctx.user.id, mapping: submission.value.mapping });
    return redirectWithToast(targetUrl(survey.id), { type: 'success', text: `${SURVEY_TOASTS.csvUploaded}: ${result.success} added, ${result.failed} failed` });
  } catch (err) {
    if (err instanceof SurveyInputError && err.status === 400) return data(submission.reply({ formErrors: [err.message] }), { status: 400 });
    throw err;
  }
}

export const handle = { breadcrumb: 'Recipient list' };

export default function RecipientListMapping() {
  const { survey, list, preview } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    defaultValue: { mapping: preview?.guesses ?? [] },
    shouldValidate: 'onSubmit',
  });
  const options = LIST_OPTIONS;
  return (
    <div className="page stack">
      <div className="row">
        <h1>Recipient list: {list.name}</h1>
        <div className="spacer" />
        <Link to={targetUrl(survey.id)}>Back to {survey.name}</Link>
      </div>
      {!preview ? (
        <p data-testid="list-counts">
          {list.fileName}: {list.successCount} added, {list.failedCount} failed.
        </p>
      ) : !survey.draft ? (
        <p className="muted">A recipient list can be uploaded only while the survey is a draft.</p>
      ) : (
        <Form method="post" {...getFormProps(form)} className="stack">
          <section className="card stack">
            <h2>Map the columns</h2>
            <p className="muted">Choose which column holds the email address and, if the file has them, the names. Rows without a valid address are counted as failed.</p>
            <ErrorList id={fields.mapping.errorId} errors={fields.mapping.errors} />
            <ColumnMappingTable header={preview.header} rows={preview.rows} columns={fields.mapping.getFieldList()} fallback={fields.mapping} options={options} />
          </section>
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="map">
              Add the recipients
            </button>
            <Link to={targetUrl(survey.id)} className="btn">
              Cancel
            </Link>
          </div>
        </Form>
      )}
    </div>
  );
}

const LIST_OPTIONS = ['ignore', 'email', 'firstName', 'lastName'].map((f) => ({ value: f, label: IMPORT_FIELD_LABELS[f as keyof typeof IMPORT_FIELD_LABELS] }));

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.list.name ?? 'Recipient list', 'Surveys') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
