import type { LoaderFunctionArgs } from '@remix-run/node';
import { AGENT_SERVICE_WORKER_JS } from '~/models/notifications/browser-push.server';

/**
 * The agents' service worker (ADR 155), at the root of the account host so that its scope is the whole app: it shows
 * desktop notifications pushed by the engine and opens their conversation on a click. No session is needed to read
 * it (it holds nothing of the account); the browser re-checks it at each registration, so it is not cached long.
 */
export async function loader(_: LoaderFunctionArgs) {
  return new Response(AGENT_SERVICE_WORKER_JS, {
    headers: {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
    },
  });
}
