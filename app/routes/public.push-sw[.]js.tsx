import type { LoaderFunctionArgs } from '@remix-run/node';
import { SERVICE_WORKER_JS } from '~/models/campaigns/push.server';

/**
 * The web push service worker (ADR 083). A service worker must come from the site's own origin, so the customer puts
 * a one-line file at their site's root (`importScripts('https://<parley>/public/push-sw.js')`), whose scope is then
 * the whole site; the messenger registers it when the snippet names it (`data-push-worker="/parley-sw.js"`).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const origin = new URL(request.url).origin;
  return new Response(SERVICE_WORKER_JS.replace('ORIGIN', origin), {
    headers: {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    },
  });
}
