import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DayLinks, TimeRadios, TimeZoneForm } from '~/components/meetings/slot-picker';
import { bookingByToken, rescheduleBooking, SlotTakenError } from '~/models/meetings/bookings.server';
import { slotChoices, validZone } from '~/models/meetings/slot-view.server';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';

/**
 * Rescheduling from the signed link of the booking's emails (ADR 088), without JavaScript: the visitor picks a new
 * day and time among those free now (their own time does not count against them), and the booking moves.
 */
export const handle = { hydrate: false };

const RATE_LIMIT = { limit: 20, windowMs: 10 * 60 * 1000 };

async function load(request: Request, token: string | undefined) {
  const account = await requireAccount(request);
  const found = await bookingByToken({ accountId: account.id, token });
  if (!found) throw new Response('Not Found', { status: 404 });
  return { account, ...found };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { account, booking, meeting } = await load(request, params.token);
  if (booking.status !== 'confirmed') return redirect(`/meet/booking/${params.token}`);
  const url = new URL(request.url);
  const tz = validZone(url.searchParams.get('tz')) ?? booking.timezone;
  const fmt = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: tz });
  return {
    token: params.token!,
    meeting: { name: meeting.name },
    current: `${fmt.format(booking.startsAt)} (${tz})`,
    zones: timeZoneNames(),
    ...(await slotChoices({ accountId: account.id, meeting, tz, day: url.searchParams.get('day'), reschedule: booking })),
  };
}

type Reply = { error: string };

export async function action({ request, params }: ActionFunctionArgs) {
  const { account, booking } = await load(request, params.token);
  await enforceRateLimit(`meeting-reschedule:${account.id}:${clientIp(request)}`, RATE_LIMIT);
  const form = await request.formData();
  if (form.get('intent') !== 'reschedule') throw new Response('Unknown intent', { status: 400 });
  const start = Number(form.get('start'));
  if (!Number.isSafeInteger(start) || start <= 0) return data<Reply>({ error: 'Choose a time' }, { status: 400 });
  if (booking.status !== 'confirmed') return data<Reply>({ error: 'This meeting is cancelled: book a new one instead.' }, { status: 409 });
  try {
    const moved = await rescheduleBooking({ accountId: account.id, id: booking.id, start });
    if (!moved) return data<Reply>({ error: 'This meeting is cancelled: book a new one instead.' }, { status: 409 });
    return redirect(`/meet/booking/${params.token}?rescheduled=1`);
  } catch (err) {
    if (err instanceof SlotTakenError) return data<Reply>({ error: err.message }, { status: 409 });
    throw err;
  }
}

export default function Reschedule() {
  const d = useLoaderData<typeof loader>();
  const reply = useActionData<Reply>();
  const q = (extra: Record<string, string>) => `?${new URLSearchParams({ tz: d.tz, ...extra })}`;
  return (
    <main className="public-page stack" style={{ maxWidth: '44rem', margin: '0 auto', padding: '1rem' }} data-testid="reschedule-page">
      <h1>Reschedule {d.meeting.name}</h1>
      <p>
        Now: <strong data-testid="current-time">{d.current}</strong>
      </p>
      <TimeZoneForm tz={d.tz} zones={d.zones} />
      {reply?.error ? (
        <p className="field-error" role="alert" data-testid="reschedule-error">
          {reply.error}
        </p>
      ) : null}
      {d.days.length === 0 ? (
        <p className="card" data-testid="no-slots">
          There is no other free time at the moment. Please come back later.
        </p>
      ) : (
        <>
          <DayLinks choices={d} href={(day) => q({ day })} />
          <form method="post" className="card stack" aria-label="Choose a new time">
            <input type="hidden" name="tz" value={d.tz} />
            <TimeRadios choices={d} />
            <p className="row">
              <button type="submit" className="btn btn-primary" name="intent" value="reschedule">
                Move my meeting
              </button>
              <a href={`/meet/booking/${d.token}`}>Keep the current time</a>
            </p>
          </form>
        </>
      )}
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d ? `Reschedule ${d.meeting.name}` : undefined, 'Reschedule') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
