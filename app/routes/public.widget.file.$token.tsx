import type { LoaderFunctionArgs } from '@remix-run/node';
import { readFileLink } from '~/models/channels/widget.server';
import { attachmentResponse, readAttachment } from '~/models/inbox/attachments.server';

/**
 * A file of the visitor's conversation, by the signed, expiring link their thread gave them (the widget and the
 * chat page have no session to show). A forged, expired or foreign link gets 404.
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const link = readFileLink(params.token);
  if (!link) throw new Response('Not Found', { status: 404 });
  const found = await readAttachment({ accountId: link.accountId, id: link.attachmentId });
  if (!found) throw new Response('Not Found', { status: 404 });
  const response = attachmentResponse(found);
  // The widget shows images and plays clips on the customer's site, another origin: helmet's same-origin resource
  // policy would block them. The link is a signed, expiring capability, so its file may be embedded anywhere.
  response.headers.set('Cross-Origin-Resource-Policy', 'cross-origin');
  return response;
}
