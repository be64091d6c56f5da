import type { ActionFunctionArgs } from '@remix-run/node';
import { auditEndpoint } from '~/utils/audit-endpoint.server';

/** POST qa-audit/trail-logs: the trail of one object (`object` and `objectId` required), as JSON (ADR 089). */
export async function loader() {
  return new Response(null, { status: 405, headers: { allow: 'POST' } });
}

export async function action({ request }: ActionFunctionArgs) {
  return auditEndpoint(request, { trail: true });
}
