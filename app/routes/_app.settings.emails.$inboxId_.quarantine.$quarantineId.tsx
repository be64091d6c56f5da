import type { LoaderFunctionArgs } from '@remix-run/node';
import { getQuarantinedEmail, quarantinedEmailResponse } from '~/models/email/quarantine.server';
import { parseRouteId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';

/** A quarantined mail exactly as it arrived, as a .eml download: for the inbox's managers only, from their own account. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_emails');
  const inboxId = parseRouteId(params.inboxId);
  const id = parseRouteId(params.quarantineId);
  const row = inboxId === null || id === null ? undefined : await getQuarantinedEmail({ accountId: ctx.account.id, inboxId, id });
  if (!row) throw new Response('Not Found', { status: 404 });
  return quarantinedEmailResponse(row);
}
