import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { TableHead } from '~/components/ui/list-table';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { cancelBooking, getBooking, listBookings } from '~/models/meetings/bookings.server';
import { getMeetingType } from '~/models/meetings/meetings.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

function readId(param: string | undefined) {
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

/** One meeting type's bookings (bookingList), newest first, with the contact and the conversation they came from. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const id = readId(params.meetingId);
  const meeting = await getMeetingType({ accountId: ctx.account.id, id });
  if (!meeting) throw new Response('Not Found', { status: 404 });
  const bookings = await listBookings({ accountId: ctx.account.id, meetingTypeId: id });
  return { user: publicUser(ctx), meeting: { id: meeting.id, name: meeting.name, slug: meeting.slug }, bookings };
}

/** An agent cancels a booking for the visitor (who gets the cancellation email). */
export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  const id = readId(params.meetingId);
  const formData = await request.formData();
  if (formData.get('intent') !== 'cancel') throw new Response('Unknown intent', { status: 400 });
  const bookingId = parseRouteId(String(formData.get('bookingId') ?? ''));
  const found = bookingId === null ? undefined : await getBooking({ accountId: ctx.account.id, id: bookingId });
  if (!found || found.booking.meetingTypeId !== id) throw new Response('Not Found', { status: 404 });
  await cancelBooking({ accountId: ctx.account.id, id: found.booking.id, actor: { type: 'user', id: ctx.user.id } });
  return redirectWithToast(`/customers/meetings/${id}`, { type: 'info', text: 'Booking cancelled' });
}

export const handle = { breadcrumb: (d: { meeting: { name: string } } | undefined) => d?.meeting.name ?? null };

export default function MeetingBookings() {
  const { user, meeting, bookings } = useLoaderData<typeof loader>();
  return (
    <section className="stack" data-testid="meeting-bookings">
      <header className="row">
        <h1>{meeting.name}</h1>
        <div className="spacer" />
        <a className="btn" href={`/meet/${meeting.slug}`}>
          Booking page
        </a>
      </header>
      {bookings.length === 0 ? (
        <p className="muted">No bookings yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="bookings">
            <TableHead headers={['When', 'Visitor', 'Host', 'Status', { hidden: 'Actions' }]} />
            <tbody>
              {bookings.map((bk) => (
                <tr key={bk.id}>
                  <td>{formatDateTime(bk.startsAt, user)}</td>
                  <td>
                    {bk.contactId ? <Link to={`/customers/${bk.contactId}`}>{bk.name}</Link> : bk.name} <span className="muted">{bk.email}</span>
                    {bk.note ? <div className="muted">{bk.note}</div> : null}
                    {bk.conversationId ? <Link to={`/inbox/${bk.conversationId}`}>From a conversation</Link> : null}
                  </td>
                  <td>{bk.hostName}</td>
                  <td>
                    <span className="badge">{bk.status === 'confirmed' ? 'Confirmed' : 'Cancelled'}</span>
                  </td>
                  <td>
                    {bk.status === 'confirmed' ? (
                      <Form method="post">
                        <input type="hidden" name="bookingId" value={bk.id} />
                        <button className="btn" name="intent" value="cancel" aria-label={`Cancel booking of ${bk.name}`}>
                          Cancel booking
                        </button>
                      </Form>
                    ) : null}
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

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.meeting.name, 'Meetings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
