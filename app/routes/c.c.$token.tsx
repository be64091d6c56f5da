import type { LoaderFunctionArgs } from '@remix-run/node';
import { recordClick } from '~/models/campaigns/recipients.server';

/**
 * A tracked link of a campaign email (ADR 065): the destination is inside the signed token, so only links Parley
 * wrote redirect (no open redirect); a forged or altered token is a 404.
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const url = await recordClick(params.token ?? '');
  if (!url) throw new Response('This link is not valid.', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  return new Response(null, { status: 302, headers: { Location: url, 'Cache-Control': 'no-store, private', 'Referrer-Policy': 'no-referrer' } });
}
