import type { LoaderFunctionArgs } from '@remix-run/node';
import { getWidgetBundle } from '~/models/channels/widget-bundle.server';

/**
 * The messenger widget's script, `<script src="…/public/widget.js" data-inbox="…" async>`. Public, cacheable for
 * a short while (a new release reaches sites within the hour), gzip-compressed when the browser accepts it.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const bundle = await getWidgetBundle();
  const headers: Record<string, string> = {
    'Content-Type': 'application/javascript; charset=utf-8',
    'Cache-Control': 'public, max-age=3600',
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    ETag: bundle.etag,
    Vary: 'Accept-Encoding',
  };
  if (request.headers.get('if-none-match') === bundle.etag) return new Response(null, { status: 304, headers });
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    return new Response(new Uint8Array(bundle.gzip), { headers: { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': String(bundle.gzip.length) } });
  }
  return new Response(bundle.code, { headers });
}
