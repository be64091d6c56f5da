import type { LoaderFunctionArgs } from '@remix-run/node';
import { bookingByToken, invitationOf } from '~/models/meetings/bookings.server';
import { accountUrl, requireAccount } from '~/utils/tenant.server';

/** The booking's invitation as an .ics file, by the same signed link (for calendars that ignore the email's). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  const found = await bookingByToken({ accountId: account.id, token: params.token });
  if (!found) throw new Response('Not Found', { status: 404 });
  const ics = await invitationOf({ accountId: account.id, ...found, manageUrl: accountUrl(request, account.domain, `/meet/booking/${params.token}`) });
  return new Response(ics, { headers: { 'Content-Type': 'text/calendar; charset=utf-8', 'Content-Disposition': 'attachment; filename="invite.ics"', 'Cache-Control': 'private, no-store' } });
}
