import type { LoaderFunctionArgs } from '@remix-run/node';
import { getWidgetBundle, scriptResponse } from '~/models/channels/widget-bundle.server';

/** The messenger widget's script, `<script src="…/public/widget.js" data-inbox="…" async>`, for any site. */
export async function loader({ request }: LoaderFunctionArgs) {
  return scriptResponse(request, await getWidgetBundle());
}
