import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DayLinks, TimeRadios, TimeZoneForm } from '~/components/meetings/slot-picker';
import { accountHasFeature } from '~/models/accounts/accounts.server';
import { bookingToken, bookMeeting, readConversationToken, SlotTakenError } from '~/models/meetings/bookings.server';
import { minutesLabel } from '~/models/meetings/constants';
import { getMeetingTypeBySlug } from '~/models/meetings/meetings.server';
import { BookingSchema } from '~/models/meetings/schemas';
import { slotChoices, validZone } from '~/models/meetings/slot-view.server';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';

/**
 * A meeting's public booking page, /meet/{slug} on the account's host (ADR 072): no sign-in and no script. The
 * visitor picks a time zone (a GET form), a day (links), a time (radio buttons) and books with name, email and note.
 */
export const handle = { hydrate: false };

const RATE_LIMIT = { limit: 20, windowMs: 10 * 60 * 1000 };

async function load(request: Request, slug: string | undefined) {
  const account = await requireAccount(request);
  const meeting = await getMeetingTypeBySlug({ accountId: account.id, slug: slug ?? '' });
  if (!meeting || !(await accountHasFeature({ accountId: account.id, key: 'chatMessenger/integratedMeetings' }))) throw new Response('Not Found', { status: 404 });
  return { account, meeting };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { account, meeting } = await load(request, params.slug);
  const url = new URL(request.url);
  const tz = validZone(url.searchParams.get('tz')) ?? meeting.timezone;
  return {
    accountName: account.name,
    meeting: { name: meeting.name, description: meeting.description, length: minutesLabel(meeting.slotMinutes), location: meeting.location, video: Boolean(meeting.videoLink) },
    zones: timeZoneNames(),
    // A link offered in a chat (signed conversation); passed along, checked again when booking.
    c: readConversationToken(url.searchParams.get('c')) ? url.searchParams.get('c') : null,
    ...(await slotChoices({ accountId: account.id, meeting, tz, day: url.searchParams.get('day') })),
  };
}

type Reply = { values: Record<string, string>; errors: Record<string, string>; slotTaken?: string };

export async function action({ request, params }: ActionFunctionArgs) {
  const { account, meeting } = await load(request, params.slug);
  await enforceRateLimit(`meeting-book:${account.id}:${clientIp(request)}`, RATE_LIMIT);
  const form = await request.formData();
  const conversationId = readConversationToken(String(form.get('c') ?? ''));
  const values = Object.fromEntries(['start', 'name', 'email', 'note', 'tz'].map((k) => [k, String(form.get(k) ?? '').slice(0, 2000)]));
  const parsed = BookingSchema.safeParse({ ...values, note: values.note || undefined, tz: values.tz || undefined });
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0])] ??= issue.message;
    return data<Reply>({ values, errors }, { status: 400 });
  }
  const v = parsed.data;
  try {
    const booking = await bookMeeting({ accountId: account.id, meeting, start: v.start, name: v.name, email: v.email, note: v.note, timezone: validZone(v.tz) ?? meeting.timezone, conversationId });
    return redirect(`/meet/booking/${bookingToken(booking.id)}?booked=1`);
  } catch (err) {
    if (err instanceof SlotTakenError) return data<Reply>({ values, errors: {}, slotTaken: err.message }, { status: 409 });
    throw err;
  }
}

export default function BookingPage() {
  const d = useLoaderData<typeof loader>();
  const reply = useActionData<Reply>();
  const values = reply?.values ?? {};
  const errors = reply?.errors ?? {};
  const q = (extra: Record<string, string>) => `?${new URLSearchParams({ tz: d.tz, ...(d.c ? { c: d.c } : {}), ...extra })}`;
  return (
    <main className="public-page stack" style={{ maxWidth: '44rem', margin: '0 auto', padding: '1rem' }} data-testid="booking-page">
      <header>
        <p className="muted">{d.accountName}</p>
        <h1>{d.meeting.name}</h1>
        <p>
          {d.meeting.length}
          {d.meeting.location ? ` · ${d.meeting.location}` : ''}
          {d.meeting.video ? ' · Video call' : ''}
        </p>
        {d.meeting.description ? <p>{d.meeting.description}</p> : null}
      </header>
      <TimeZoneForm tz={d.tz} zones={d.zones} hidden={{ c: d.c }} />
      {reply?.slotTaken ? (
        <p className="field-error" role="alert" data-testid="slot-taken">
          {reply.slotTaken}
        </p>
      ) : null}
      {d.days.length === 0 ? (
        <p className="card" data-testid="no-slots">
          There is no free time to book at the moment. Please come back later.
        </p>
      ) : (
        <>
          <DayLinks choices={d} href={(day) => q({ day })} />
          <form method="post" className="card stack" aria-label="Book a time">
            <input type="hidden" name="tz" value={d.tz} />
            {d.c ? <input type="hidden" name="c" value={d.c} /> : null}
            <TimeRadios choices={d} checked={values.start} error={errors.start} />
            <PlainField name="name" label="Name" value={values.name} error={errors.name} autoComplete="name" />
            <PlainField name="email" label="Email" type="email" value={values.email} error={errors.email} autoComplete="email" />
            <div className="field">
              <label htmlFor="note">Note (optional)</label>
              <textarea id="note" name="note" rows={3} maxLength={2000} defaultValue={values.note} />
              {errors.note ? (
                <p className="field-error" role="alert">
                  {errors.note}
                </p>
              ) : null}
            </div>
            <button type="submit" className="btn btn-primary">
              Book
            </button>
          </form>
        </>
      )}
    </main>
  );
}

function PlainField({ name, label, type = 'text', value, error, autoComplete }: { name: string; label: string; type?: string; value?: string; error?: string; autoComplete?: string }) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input id={name} name={name} type={type} defaultValue={value} autoComplete={autoComplete} aria-invalid={error ? true : undefined} aria-describedby={error ? `${name}-error` : undefined} required />
      {error ? (
        <p id={`${name}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.meeting.name, 'Book a meeting') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
