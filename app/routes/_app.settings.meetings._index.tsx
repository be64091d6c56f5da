import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { CopyButton } from '~/components/ui/copy-button';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { CaldavError } from '~/models/meetings/caldav.server';
import { connectCaldavCalendar, disconnectCalendar, listCalendarConnections } from '~/models/meetings/calendars.server';
import { CaldavConnectSchema } from '~/models/meetings/schemas';
import { OutboundRefusedError, REFUSED_DESTINATION_MESSAGE } from '~/utils/outbound-guard.server';
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
  const [meetings, calendars] = await Promise.all([listMeetingTypes({ accountId: ctx.account.id }), listCalendarConnections({ accountId: ctx.account.id, userId: ctx.user.id })]);
  const google = calendars.find((c) => c.provider === 'google');
  const caldav = calendars.find((c) => c.provider === 'caldav');
  return {
    meetings,
    calendar: google ? { account: google.externalAccount } : null,
    caldav: caldav ? { account: caldav.externalAccount, url: caldav.serverUrl ?? '' } : null,
    googleAvailable: isGoogleConfigured(),
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

type CaldavReply = { values: { url: string; username: string }; errors: Record<string, string> };

/** setDefault (manage_messenger_customization) and connecting or disconnecting one's own calendars (any agent). */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'disconnect' || intent === 'caldav-disconnect') {
    await disconnectCalendar({ accountId: ctx.account.id, userId: ctx.user.id, provider: intent === 'disconnect' ? 'google' : 'caldav' });
    return redirectWithToast(LIST, { type: 'info', text: 'Calendar disconnected' });
  }
  if (intent === 'caldav-connect') {
    const values = { url: String(formData.get('url') ?? '').slice(0, 2000), username: String(formData.get('username') ?? '').slice(0, 200) };
    const parsed = CaldavConnectSchema.safeParse({ ...values, password: String(formData.get('password') ?? '') });
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const issue of parsed.error.issues) errors[String(issue.path[0])] ??= issue.message;
      return data<CaldavReply>({ values, errors }, { status: 400 });
    }
    try {
      await connectCaldavCalendar({ accountId: ctx.account.id, userId: ctx.user.id, ...parsed.data });
    } catch (err) {
      if (err instanceof OutboundRefusedError) return data<CaldavReply>({ values, errors: { url: REFUSED_DESTINATION_MESSAGE } }, { status: 400 });
      if (err instanceof CaldavError) return data<CaldavReply>({ values, errors: { [err.status === 401 || err.status === 403 ? 'password' : 'url']: err.message } }, { status: 400 });
      throw err;
    }
    return redirectWithToast(LIST, { type: 'success', text: 'CalDAV calendar connected' });
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
  const { meetings, calendar, caldav, googleAvailable, locked } = useLoaderData<typeof loader>();
  const reply = useActionData<CaldavReply>();
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
                      </a>{' '}
                      <CopyButton text={`/meet/${m.slug}`} absolute label="Copy link" />
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
          <h3>CalDAV</h3>
          {caldav ? (
            <Form method="post" className="row wrap" data-testid="caldav-connected">
              <span>
                CalDAV calendar connected: {caldav.account} at <code>{caldav.url}</code>. Its busy times are kept free of bookings, and bookings are added to it.
              </span>
              <button className="btn" name="intent" value="caldav-disconnect">
                Disconnect CalDAV
              </button>
            </Form>
          ) : (
            <Form method="post" className="stack" aria-label="Connect a CalDAV calendar" data-testid="caldav-form">
              <p className="muted">Nextcloud, Radicale, Baïkal, Fastmail, iCloud (with an app password) and other CalDAV servers: give the calendar’s own address.</p>
              <CaldavField name="url" label="Calendar address" type="url" value={reply?.values.url} error={reply?.errors.url} placeholder="https://cloud.example.com/remote.php/dav/calendars/me/personal/" />
              <CaldavField name="username" label="User name" value={reply?.values.username} error={reply?.errors.username} autoComplete="username" />
              <CaldavField name="password" label="Password" type="password" error={reply?.errors.password} autoComplete="current-password" />
              <p>
                <button className="btn btn-primary" name="intent" value="caldav-connect">
                  Connect CalDAV calendar
                </button>
              </p>
            </Form>
          )}
        </section>
      </div>
    </SettingsPage>
  );
}

function CaldavField(props: { name: string; label: string; type?: string; value?: string; error?: string; placeholder?: string; autoComplete?: string }) {
  const id = `caldav-${props.name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        defaultValue={props.value}
        placeholder={props.placeholder}
        autoComplete={props.autoComplete}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${id}-error` : undefined}
        required
      />
      {props.error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Meetings', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
