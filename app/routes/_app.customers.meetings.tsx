import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, Outlet, useLoaderData, useOutlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { listMeetingTypes } from '~/models/meetings/meetings.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requireUser } from '~/utils/session.server';

/** CRM → Meetings: each meeting type with its booking count (section 3's meeting list item). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const meetings = await listMeetingTypes({ accountId: ctx.account.id });
  return { meetings, canManage: can(ctx, 'manage_messenger_customization') };
}

export const handle = { breadcrumb: 'Meetings' };

export default function Meetings() {
  const { meetings, canManage } = useLoaderData<typeof loader>();
  const outlet = useOutlet();
  if (outlet) return <Outlet />;
  return (
    <section className="stack" data-testid="crm-meetings">
      <header className="row">
        <h1>Meetings</h1>
        <div className="spacer" />
        {canManage ? (
          <Link to="/settings/meetings/create" className="btn btn-primary">
            Create Meeting
          </Link>
        ) : null}
      </header>
      {meetings.length === 0 ? (
        <div className="card empty-state">
          <h2>No meetings yet</h2>
          <p className="muted">Create a meeting type and share its booking page: customers pick a free time of your team.</p>
        </div>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="meetings">
            <thead>
              <tr>
                <th>Meeting</th>
                <th>Bookings</th>
                <th>Booking page</th>
              </tr>
            </thead>
            <tbody>
              {meetings.map((m) => (
                <tr key={m.id}>
                  <td>
                    <Link to={`/customers/meetings/${m.id}`}>{m.meetingName}</Link> {m.isDefault ? <span className="badge">Default</span> : null}
                  </td>
                  <td data-testid={`meeting-count-${m.id}`}>{m.totalBookings}</td>
                  <td>
                    <a href={`/meet/${m.slug}`}>/meet/{m.slug}</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Meetings', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
