import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { bookingByToken, cancelBooking } from '~/models/meetings/bookings.server';
import { pageTitle } from '~/utils/format';
import { requireAccount } from '~/utils/tenant.server';

/** A booking's own page, reached by the signed link of its emails: the details, the invitation, and Cancel. */
export const handle = { hydrate: false };

async function load(request: Request, token: string | undefined) {
  const account = await requireAccount(request);
  const found = await bookingByToken({ accountId: account.id, token });
  if (!found) throw new Response('Not Found', { status: 404 });
  return { account, ...found };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { booking, meeting } = await load(request, params.token);
  const url = new URL(request.url);
  const fmt = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: booking.timezone });
  return {
    token: params.token!,
    booked: url.searchParams.get('booked') === '1',
    rescheduled: url.searchParams.get('rescheduled') === '1',
    meeting: { name: meeting.name, location: meeting.location, videoLink: meeting.videoLink },
    booking: { name: booking.name, email: booking.email, when: `${fmt.format(booking.startsAt)} (${booking.timezone})`, status: booking.status },
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { account, booking } = await load(request, params.token);
  const form = await request.formData();
  if (form.get('intent') !== 'cancel') throw new Response('Unknown intent', { status: 400 });
  await cancelBooking({ accountId: account.id, id: booking.id, actor: { type: 'contact', id: booking.contactId } });
  return redirect(`/meet/booking/${params.token}`);
}

export default function BookingDetails() {
  const { token, booked, rescheduled, meeting, booking } = useLoaderData<typeof loader>();
  const cancelled = booking.status === 'cancelled';
  return (
    <main className="public-page stack" style={{ maxWidth: '40rem', margin: '0 auto', padding: '1rem' }} data-testid="booking-details">
      <h1>{cancelled ? 'Meeting cancelled' : rescheduled ? 'Your meeting moved' : booked ? 'You are booked' : meeting.name}</h1>
      <div className="card stack">
        <p>
          <strong>{meeting.name}</strong> with {booking.name}
        </p>
        <p data-testid="booking-when">{booking.when}</p>
        {meeting.videoLink ? (
          <p>
            Join: <a href={meeting.videoLink}>{meeting.videoLink}</a>
          </p>
        ) : meeting.location ? (
          <p>Where: {meeting.location}</p>
        ) : null}
        {cancelled ? (
          <p data-testid="booking-cancelled">This meeting is cancelled.</p>
        ) : (
          <>
            <p className="muted">A confirmation with a calendar invitation was sent to {booking.email}.</p>
            <p>
              <a href={`/meet/booking/${token}/ics`} className="btn" download="invite.ics">
                Add to calendar (.ics)
              </a>
            </p>
            <form method="post" className="row">
              <a href={`/meet/booking/${token}/reschedule`} className="btn" data-testid="reschedule-link">
                Reschedule
              </a>
              <button className="btn btn-danger" name="intent" value="cancel">
                Cancel meeting
              </button>
            </form>
          </>
        )}
      </div>
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.meeting.name, 'Your meeting') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
