import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { REVIEW_REQUEST_LIMITS, REVIEW_REQUEST_PLACEHOLDERS, SOURCE_KIND_LABELS, type ReviewSourceKind } from '~/models/reviews/constants';
import { getReviewRequestSettings, listRecentReviewRequests, ReviewRequestInputError, saveReviewRequestSettings } from '~/models/reviews/requests.server';
import { listSources } from '~/models/reviews/reviews.server';
import { ReviewRequestSchema } from '~/models/reviews/schemas';
import { listEmailSenderOptions } from '~/models/surveys/senders.server';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const HERE = '/settings/email-setup';

/** Settings → Reviews → Email setup: the review-request email sent after a resolved conversation (ADR 086). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requireUser(request));
  const accountId = ctx.account.id;
  const [settings, sources, senders, recent] = await Promise.all([
    getReviewRequestSettings({ accountId }),
    listSources({ accountId }),
    listEmailSenderOptions({ accountId, host: new URL(request.url).host }),
    listRecentReviewRequests({ accountId }),
  ]);
  return {
    settings: {
      isEnabled: settings.isEnabled,
      senderName: settings.senderName,
      senderEmail: settings.senderEmail ?? senders[0] ?? '',
      subject: settings.subject,
      body: settings.body,
      sourceId: settings.sourceId ? String(settings.sourceId) : '',
      minCsat: settings.minCsat ? String(settings.minCsat) : '',
      periodDays: String(settings.periodDays),
    },
    sources: sources.map((s) => ({ value: String(s.id), label: `${s.name} (${SOURCE_KIND_LABELS[s.kind as ReviewSourceKind] ?? s.kind})` })),
    senders: senders.map((e) => ({ value: e, label: e })),
    recent,
    locked: !can(ctx, 'manage_surveys'),
    user: publicUser(ctx),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ReviewRequestSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    await saveReviewRequestSettings({ accountId: ctx.account.id, actorId: ctx.user.id, host: new URL(request.url).host, input: submission.value });
  } catch (err) {
    if (err instanceof ReviewRequestInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
  return redirectWithToast(HERE, { type: 'info', text: 'Email Setup Saved' });
}

export const handle = { breadcrumb: 'Email Setup' };

const CSAT_OPTIONS = [
  { value: '5', label: 'Only after a rating of 5' },
  { value: '4', label: 'Only after a rating of 4 or 5' },
  { value: '3', label: 'Only after a rating of 3 or more' },
];

export default function ReviewEmailSetup() {
  const { settings, sources, senders, recent, locked, user } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<{ isEnabled: boolean; senderName: string; senderEmail: string; subject: string; body: string; sourceId: string; minCsat: string; periodDays: string }>({
    id: 'review-email-setup',
    lastResult,
    defaultValue: { ...settings, isEnabled: settings.isEnabled ? 'on' : undefined },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title="Email Setup"
      subHeader="Ask customers for a review by email after their conversation is resolved — optionally only those who rated it highly."
      learnMore="/help-center"
      locked={locked}
    >
      <div className="stack">
        <Form method="post" {...getFormProps(form)} className="stack" aria-label="Review request email">
          <CheckboxField label="Send review-request emails" field={fields.isEnabled} disabled={locked} />
          <SelectField label="Send customers to" field={fields.sourceId} options={sources} placeholder={sources.length ? 'Choose a source' : 'Add a source first (Settings → Reviews → Sources)'} disabled={locked} />
          <SelectField label="Who is asked" field={fields.minCsat} options={CSAT_OPTIONS} placeholder="Everyone whose conversation is resolved" disabled={locked} />
          <Field label="At most one email per contact every (days)" field={fields.periodDays} type="number" min={1} max={REVIEW_REQUEST_LIMITS.periodDays} disabled={locked} />
          <fieldset className="stack">
            <legend>Email</legend>
            <Field label="Sender name" field={fields.senderName} maxLength={REVIEW_REQUEST_LIMITS.senderName} hint="Your company name when left blank." disabled={locked} />
            <SelectField label="Sender address (verified)" field={fields.senderEmail} options={senders} disabled={locked} />
            <Field label="Subject" field={fields.subject} maxLength={REVIEW_REQUEST_LIMITS.subject} disabled={locked} />
            <TextareaField label="Body" field={fields.body} rows={8} maxLength={REVIEW_REQUEST_LIMITS.body} disabled={locked} />
            <small className="muted" data-testid="placeholders">
              Placeholders: {REVIEW_REQUEST_PLACEHOLDERS.join(', ')}. Every email ends with an unsubscribe link.
            </small>
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={HERE} locked={locked} intent="save" />
        </Form>
        <h2>Recently sent</h2>
        {recent.length === 0 ? (
          <p className="muted" data-testid="no-requests">
            No review requests sent yet.
          </p>
        ) : (
          <table className="table" data-testid="recent-requests">
            <thead>
              <tr>
                <th>Contact</th>
                <th>Sent</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((r) => (
                <tr key={r.id}>
                  <td>{r.email}</td>
                  <td>{formatDateTime(r.sentAt, user)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Email Setup', 'Reviews', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
