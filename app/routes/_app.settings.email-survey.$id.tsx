import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { CsatSettingsForm } from '~/components/csat/csat-settings';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { csatEditorAction, csatEditorLoader } from '~/models/csat/screens.server';
import { pageTitle } from '~/utils/format';

/** Settings → Customer Satisfaction → Email Survey → one survey ('new' creates). */
export function loader({ request, params }: LoaderFunctionArgs) {
  return csatEditorLoader(request, params, 'email');
}

export function action({ request, params }: ActionFunctionArgs) {
  return csatEditorAction(request, params, 'email');
}

export const handle = { breadcrumb: (d: { survey: { subject: string } | null } | undefined) => (d ? (d.survey?.subject ?? 'Create') : null) };

export default function EmailSurveyEditor() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const logoError = result && 'logoError' in result ? result.logoError : null;
  return (
    <CsatSettingsForm
      key={d.survey?.id ?? 'new'}
      kind="email"
      survey={d.survey}
      inboxes={d.inboxes}
      locked={d.locked}
      lastResult={logoError ? undefined : result}
      logo={{ url: d.logoUrl, error: logoError }}
      preview={d.preview}
    />
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.survey?.subject ?? 'Create', 'Email Survey', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
