import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Anything no route matches is a 404 with the specification's page. */
export async function loader() {
  throw new Response('Not Found', { status: 404 });
}

export default function NotFound() {
  return null;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
