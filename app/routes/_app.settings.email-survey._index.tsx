import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { CsatList } from '~/components/csat/csat-list';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { csatListLoader } from '~/models/csat/screens.server';
import { pageTitle } from '~/utils/format';

/** Settings → Customer Satisfaction → Email Survey: the surveys and the account's CSAT (ADR 063). */
export function loader({ request }: LoaderFunctionArgs) {
  return csatListLoader(request, 'email');
}

export default function EmailSurveys() {
  const d = useLoaderData<typeof loader>();
  return <CsatList kind="email" {...d} />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Email Survey', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
