/**
 * Any other path of a help centre: the layout's redirect rules answer first (ADR 057); otherwise the help centre's
 * own 404, which offers search.
 */
export async function loader() {
  throw new Response('Not Found', { status: 404 });
}

export const handle = { hydrate: false };

export default function NotFound() {
  return null;
}
