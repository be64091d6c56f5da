import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { useLiveRevalidation, useLiveWatch } from '~/components/shell/use-live';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { LIVE_WINDOW_SECONDS, listLiveVisitors } from '~/models/crm/page-views.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireFeature } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/liveView');
  const visitors = await listLiveVisitors({ accountId: ctx.account.id });
  return { user: publicUser(ctx), visitors, windowMinutes: LIVE_WINDOW_SECONDS / 60 };
}

export const handle = { breadcrumb: 'Live View' };

function duration(seconds: number) {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m >= 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return m > 0 ? `${m} min ${s} s` : `${s} s`;
}

export default function LiveView() {
  const { visitors, user, windowMinutes } = useLoaderData<typeof loader>();
  useLiveWatch('liveview');
  useLiveRevalidation((m) => m.type === 'liveview.updated');
  return (
    <div className="page stack">
      <div className="row">
        <h1>Live View</h1>
        <div className="spacer" />
        <Link to="." className="btn" reloadDocument>
          Refresh
        </Link>
      </div>
      <p className="muted" data-testid="live-count">
        {`${visitors.length === 1 ? '1 visitor' : `${visitors.length} visitors`} on your site in the last ${windowMinutes} minutes.`}
      </p>
      {visitors.length === 0 ? (
        <p className="muted" data-testid="empty">
          Nobody is on your site right now.
        </p>
      ) : (
        <table className="table" data-testid="live-visitors">
          <thead>
            <tr>
              <th scope="col">Visitor</th>
              <th scope="col">Current page</th>
              <th scope="col">Referrer</th>
              <th scope="col">Time on site</th>
              <th scope="col">Country</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {visitors.map((v) => (
              <tr key={v.visitorId}>
                <td>{v.contact ? <Link to={`/customers/${v.contact.id}`}>{v.contact.name}</Link> : <span className="muted">Visitor {v.visitorId.slice(0, 8)}</span>}</td>
                <td>
                  {/^https?:\/\//i.test(v.url) ? (
                    <a href={v.url} target="_blank" rel="noreferrer noopener" title={v.url}>
                      {v.title || v.url}
                    </a>
                  ) : (
                    <span title={v.url}>{v.title || v.url}</span>
                  )}
                </td>
                <td>{v.referrer || <span className="muted">Direct</span>}</td>
                <td>{duration(v.secondsOnSite)}</td>
                <td>{v.country || <span className="muted">Unknown</span>}</td>
                <td>{formatDateTime(v.lastSeenAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Live View', 'Customers') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
