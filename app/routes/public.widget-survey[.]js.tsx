import type { LoaderFunctionArgs } from '@remix-run/node';
import { getSurveyModuleBundle } from '~/models/channels/widget-bundle.server';

/**
 * The in-app survey module (ADR 061), loaded by the messenger widget only when its session says a published in-app
 * survey targets the page. Public and cacheable like widget.js, gzip-compressed when the browser accepts it.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const bundle = await getSurveyModuleBundle();
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
