import type { ActionFunctionArgs } from '@remix-run/node';
import { auditEndpoint } from '~/utils/audit-endpoint.server';

/** POST audit-logs: the audit log's list call, as JSON (ADR 089); the screen is Settings → Audit Logs. */
export async function loader() {
  return new Response(null, { status: 405, headers: { allow: 'POST' } });
}

export async function action({ request }: ActionFunctionArgs) {
  return auditEndpoint(request);
}
