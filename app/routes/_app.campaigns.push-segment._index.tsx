import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { DeniedBadge } from '~/components/ui/badges';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ListSearch } from '~/components/ui/list-search';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { listPushSegments } from '~/models/campaigns/push-segments.server';
import { countPushSubscriptions } from '~/models/campaigns/push.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature, requireUser } from '~/utils/session.server';

/** Campaigns → Push segments (suite.md section 2): who among the web push subscribers a push campaign reaches. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/webPush', await requireUser(request));
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim().slice(0, 100) ?? '';
  const [list, subscribers] = await Promise.all([
    listPushSegments({ accountId: ctx.account.id, q, page: readPage(url) }),
    countPushSubscriptions({ accountId: ctx.account.id }),
  ]);
  return { user: publicUser(ctx), q, list, subscribers, locked: !can(ctx, 'manage_campaigns') };
}

export const handle = { breadcrumb: 'Push segments' };

export default function PushSegments() {
  const { user, q, list, subscribers, locked } = useLoaderData<typeof loader>();
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Push segments</h1>
        <div className="spacer" />
        <Link to="/campaigns/push/new" className="btn">
          {locked ? <DeniedBadge kind="role" /> : null} Create Push Campaign
        </Link>
        <Link to="/campaigns/push-segment/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Push Segment
        </Link>
      </header>
      <p className="muted" data-testid="push-subscribers">
        {subscribers} {subscribers === 1 ? 'visitor has' : 'visitors have'} subscribed to notifications through the messenger. A segment picks some of them by
        what they did when they subscribed (page, referrer, day and hour) and by their browser (
        <Link to="/help-center/campaigns#web-push">how visitors subscribe</Link>).
      </p>
      <ListSearch q={q} label="Search push segments" action="/campaigns/push-segment" />
      <ListTable
        list={list}
        columns={[
          { header: 'Name', cell: (r) => <Link to={`/campaigns/push-segment/${r.id}`}>{r.name}</Link> },
          { header: 'Conditions', cell: (r) => r.actions.length + r.properties.length },
          { header: 'Updated', cell: (r) => formatDate(r.updatedAt, user) },
        ]}
        empty={q ? 'No push segments match your search.' : 'No push segments yet.'}
        testId="push-segments"
      />
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Push segments', 'Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
