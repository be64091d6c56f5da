import type { LoaderFunctionArgs } from '@remix-run/node';
import { getSurveyModuleBundle, scriptResponse } from '~/models/channels/widget-bundle.server';

/**
 * The in-app survey module (ADR 061), loaded by the messenger widget only when its session says a published in-app
 * survey targets the page. Served like widget.js.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  return scriptResponse(request, await getSurveyModuleBundle());
}
