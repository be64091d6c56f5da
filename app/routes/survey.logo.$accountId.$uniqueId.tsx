import type { LoaderFunctionArgs } from '@remix-run/node';
import { logoResponse, readSurveyLogo } from '~/models/surveys/logo.server';
import { parseRouteId } from '~/utils/route-id';
import { requireAccount } from '~/utils/tenant.server';

/**
 * A survey's logo, inline, for the editor's preview and the public survey pages: only on the account's own host,
 * only a png or jpeg (what the bytes are), never rendered as a document of this origin.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  const accountId = parseRouteId(params.accountId);
  const uniqueId = params.uniqueId ?? '';
  if (accountId !== account.id || !/^[a-z0-9]{16}$/.test(uniqueId)) throw new Response('Not Found', { status: 404 });
  const found = await readSurveyLogo({ accountId, uniqueId });
  if (!found) throw new Response('Not Found', { status: 404 });
  return logoResponse(found);
}
