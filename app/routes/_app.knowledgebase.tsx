import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature } from '~/utils/session.server';
import kbStyles from '../styles/kb.css?url';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: kbStyles }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'knowledgeBase/enabled');
  return null;
}

export const handle = { breadcrumb: 'Knowledge Base' };

export default function KnowledgeBaseArea() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
