import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { disconnectCalendar, getCalendarConnection } from '~/models/meetings/calendars.server';
import { isGoogleConfigured } from '~/models/meetings/google-calendar.server';
import { listMeetingTypes, setDefaultMeetingType } from '~/models/meetings/meetings.server';
import { minutesLabel } from '~/models/meetings/constants';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/meetings';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const [meetings, calendar] = await Promise.all([listMeetingTypes({ accountId: ctx.account.id }), getCalendarConnection({ accountId: ctx.account.id, userId: ctx.user.id })]);
  return {
    meetings,
    calendar: calendar ? { account: calendar.externalAccount, since: calendar.createdAt } : null,
    googleAvailable: isGoogleConfigured(),
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

/** setDefault (manage_messenger_customization) and disconnecting one's own calendar (any agent). */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'disconnect') {
    await disconnectCalendar({ accountId: ctx.account.id, userId: ctx.user.id });
    return redirectWithToast(LIST, { type: 'info', text: 'Calendar disconnected' });
  }
  if (intent === 'set-default') {
    await requirePermission(request, 'manage_messenger_customization');
    const id = parseRouteId(String(formData.get('id') ?? ''));
    if (id === null || !(await setDefaultMeetingType({ accountId: ctx.account.id, actorId: ctx.user.id, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Meeting Updated' });
  }
  throw new Response('Unknown intent', { status: 400 });
}

export default function MeetingsSettings() {
  const { meetings, calendar, googleAvailable, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Meetings"
      subHeader="Meeting types customers book on their own page, and the calendar Parley checks for your busy times."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to={`${LIST}/create`} className="btn btn-primary" data-testid="create-meeting">
          {locked ? <DeniedBadge kind="role" /> : null} Create Meeting
        </Link>
      }
    >
      <div className="stack">
        {meetings.length === 0 ? (
          <p className="muted" data-testid="no-meetings">
            No meetings yet.
          </p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="meeting-types">
              <thead>
                <tr>
                  <th>Meeting Name</th>
                  <th>Length</th>
                  <th>Bookings</th>
                  <th>Booking page</th>
                  <th>Default</th>
                </tr>
              </thead>
              <tbody>
                {meetings.map((m) => (
                  <tr key={m.id}>
                    <td>
                      <Link to={`${LIST}/${m.id}`}>{m.meetingName}</Link>
                    </td>
                    <td>{minutesLabel(m.slotMinutes)}</td>
                    <td>{m.totalBookings}</td>
                    <td>
                      <a href={`/meet/${m.slug}`} data-testid={`booking-link-${m.id}`}>
                        /meet/{m.slug}
                      </a>
                    </td>
                    <td>
                      {m.isDefault ? (
                        <span className="badge">Default</span>
                      ) : locked ? null : (
                        <Form method="post">
                          <input type="hidden" name="id" value={m.id} />
                          <button className="btn" name="intent" value="set-default" aria-label={`Make default: ${m.meetingName}`}>
                            Make default
                          </button>
                        </Form>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <section className="card stack" aria-labelledby="calendar-title" data-testid="calendar-connection">
          <h2 id="calendar-title">Your calendar</h2>
          {calendar ? (
            <Form method="post" className="row">
              <span>
                Google Calendar connected{calendar.account ? ` (${calendar.account})` : ''}: its busy times are kept free of bookings, and bookings are added to it.
              </span>
              <button className="btn" name="intent" value="disconnect">
                Disconnect
              </button>
            </Form>
          ) : googleAvailable ? (
            <p className="row">
              <span>Connect your Google Calendar so that customers cannot book you when you are busy.</span>
              <a className="btn btn-primary" href={`${LIST}/google`} data-testid="connect-google">
                Connect Google Calendar
              </a>
            </p>
          ) : (
            <p className="muted">Google Calendar is not set up on this server: its administrator sets GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET.</p>
          )}
        </section>
      </div>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Meetings', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
