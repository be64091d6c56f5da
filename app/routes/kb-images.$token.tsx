import type { LoaderFunctionArgs } from '@remix-run/node';
import { isHelpHostRequest, requireHelpAccount } from '~/models/knowledge-base/help-host.server';
import { kbImageResponse, readKbImage } from '~/models/knowledge-base/images.server';

/**
 * A knowledge-base image on the account host (agent editor, version view, /hc/{slug} pages) (ADR 058). On a help
 * host the same address is rewritten to hc.$kbSlug.kb-images.$token, which serves only that knowledge base's.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  if (isHelpHostRequest(request)) throw new Response('Not Found', { status: 404 });
  const found = await readKbImage({ accountId: account.id, token: params.token ?? '' });
  if (!found) throw new Response('Not Found', { status: 404 });
  return kbImageResponse(found);
}
