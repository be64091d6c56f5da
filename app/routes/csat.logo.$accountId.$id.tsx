import type { LoaderFunctionArgs } from '@remix-run/node';
import { readCsatLogo } from '~/models/csat/csat.server';
import { logoResponse } from '~/models/surveys/logo.server';
import { parseRouteId } from '~/utils/route-id';
import { requireAccount } from '~/utils/tenant.server';

/**
 * The logo of a CSAT email survey, for the rating email and the settings preview: public (mail clients fetch it
 * without a session) but only on the account's own host, only a png or jpeg (what the bytes are).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  const accountId = parseRouteId(params.accountId);
  const id = parseRouteId(params.id);
  if (accountId !== account.id || !id) throw new Response('Not Found', { status: 404 });
  const found = await readCsatLogo({ accountId, id });
  if (!found) throw new Response('Not Found', { status: 404 });
  return logoResponse(found);
}
