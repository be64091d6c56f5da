import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature } from '~/utils/session.server';
import surveyStyles from '../styles/surveys.css?url';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: surveyStyles }];

/** The plan area customerSatisfactionSurveys gates the whole of Surveys (suite.md, plan features). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'customerSatisfactionSurveys/enabled');
  return null;
}

export const handle = { breadcrumb: 'Surveys' };

export default function SurveysArea() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
