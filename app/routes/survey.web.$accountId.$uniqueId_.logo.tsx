import type { LoaderFunctionArgs } from '@remix-run/node';
import { readSurveyLogo } from '~/models/surveys/logo.server';
import { requireAccount } from '~/utils/tenant.server';

/** A web survey's logo, public like the survey page itself (found by the account and the survey's unguessable key). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  const found = await readSurveyLogo({ accountId: account.id, uniqueId: params.uniqueId ?? '' });
  if (!found) throw new Response('Not Found', { status: 404 });
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      'Content-Type': found.attachment.contentType,
      'Cache-Control': 'public, max-age=300',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': 'inline',
    },
  });
}
