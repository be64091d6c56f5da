import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { CsatSettingsForm } from '~/components/csat/csat-settings';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { csatEditorAction, csatEditorLoader } from '~/models/csat/screens.server';
import { pageTitle } from '~/utils/format';

/** Settings → Customer Satisfaction → Chat Survey → one survey ('new' creates). */
export function loader({ request, params }: LoaderFunctionArgs) {
  return csatEditorLoader(request, params, 'chat');
}

export function action({ request, params }: ActionFunctionArgs) {
  return csatEditorAction(request, params, 'chat');
}

export const handle = { breadcrumb: (d: { survey: { subject: string } | null } | undefined) => (d ? (d.survey?.subject ?? 'Create') : null) };

export default function ChatSurveyEditor() {
  const d = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  return <CsatSettingsForm key={d.survey?.id ?? 'new'} kind="chat" survey={d.survey} inboxes={d.inboxes} locked={d.locked} lastResult={lastResult} />;
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.survey?.subject ?? 'Create', 'Chat Survey', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
