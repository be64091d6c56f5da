import { isRouteErrorResponse, Link, useRouteError } from '@remix-run/react';
import { FEATURE_DENIED_MESSAGE } from '~/models/shell/denied-messages';
import { DeniedBadge } from './ui/badges';

/** The shared error page: the specification's texts for 404, 403, 401, 503 and 418. Every route exports it. */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    const data = error.data as { denied?: 'role' | 'feature'; suspended?: boolean; message?: string } | string | undefined;
    const denied = typeof data === 'object' && data ? data.denied : undefined;
    switch (error.status) {
      case 404:
        return (
          <ErrorPage code="404" title="Sorry, the page is not found!">
            <Link className="btn btn-primary" to="/">
              Go to Homepage
            </Link>
          </ErrorPage>
        );
      case 403:
        if (denied === 'feature') {
          return (
            <ErrorPage code="403" title="Upgrade required" badge={<DeniedBadge kind="feature" />}>
              <p data-testid="feature-denied">{FEATURE_DENIED_MESSAGE}</p>
              <Link className="btn" to="/settings/my-plan">
                See plans
              </Link>
            </ErrorPage>
          );
        }
        return (
          <ErrorPage code="403" title="403 - Unauthorized" badge={<DeniedBadge kind="role" />}>
            <p data-testid="role-denied">You aren't authorized to see this page.</p>
          </ErrorPage>
        );
      case 401:
        return <ErrorPage code="401" title="You aren't authorized to see this" />;
      case 503:
        if (typeof data === 'object' && data?.suspended) {
          return (
            <ErrorPage code="503" title="This account is suspended">
              <p data-testid="account-suspended">{data.message}</p>
            </ErrorPage>
          );
        }
        return (
          <ErrorPage code="503" title="Looks like our API is down">
            {typeof data === 'object' && data?.message ? <p data-testid="unavailable">{data.message}</p> : null}
          </ErrorPage>
        );
      case 418:
        return (
          <ErrorPage code="418" title="418 - I'm a teapot">
            <p>{typeof data === 'string' && data ? data : 'This request cannot be handled here.'}</p>
          </ErrorPage>
        );
      case 429:
        return <ErrorPage code="429" title="Too many attempts">{typeof data === 'string' ? <p>{data}</p> : null}</ErrorPage>;
      default:
        return <ErrorPage code={String(error.status)} title={typeof data === 'string' && data ? data : 'Something went wrong'} />;
    }
  }
  return <ErrorPage code="500" title="Something went wrong" />;
}

function ErrorPage(props: { code: string; title: string; badge?: React.ReactNode; children?: React.ReactNode }) {
  return (
    <div className="error-page" data-status={props.code}>
      <p className="error-code">{props.code}</p>
      <h1>
        {props.title} {props.badge}
      </h1>
      {props.children}
    </div>
  );
}
