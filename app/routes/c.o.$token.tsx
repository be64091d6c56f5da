import type { LoaderFunctionArgs } from '@remix-run/node';
import { recordOpen } from '~/models/campaigns/recipients.server';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** The open-tracking pixel of a campaign email (ADR 065): counted when the signed token is genuine, served either way. */
export async function loader({ params }: LoaderFunctionArgs) {
  await recordOpen(params.token ?? '');
  return new Response(PIXEL, { headers: { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store, private', 'Content-Length': String(PIXEL.length) } });
}
