import type { ActionFunctionArgs } from '@remix-run/node';
import { touchSession } from '~/models/auth/sessions.server';
import { requireUser } from '~/utils/session.server';

/**
 * The idle module's ping (ADR 148): the user is active on an open page, or chose "Stay signed in". A session
 * already ended by inactivity answers the redirect to sign-in, like any page.
 */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  await touchSession({ id: ctx.sessionId, accountId: ctx.account.id });
  return Response.json({ ok: true, idleMs: (ctx.account.settings.idleSignOutMinutes ?? 0) * 60_000 }, { headers: { 'Cache-Control': 'no-store' } });
}

export function loader() {
  throw new Response('Method Not Allowed', { status: 405 });
}
