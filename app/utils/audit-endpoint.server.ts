import { AuditQueryError, auditPageJson, readAuditQuery } from '../models/audit/audit-logs.server';
import { FEATURE_DENIED_MESSAGE } from '../models/plans/catalogue';
import { can, canUseFeature, getAppContext } from './session.server';

/** The body as JSON (an object) or as a form; at most 16 KB, the filters are short. */
async function readInputBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.length > 16_384) throw new Error('The request body is too large');
  if (!text.trim()) return {};
  if ((request.headers.get('content-type') ?? '').includes('application/json')) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error('The request body is not valid JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('The request body must be a JSON object');
    return body as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * `POST audit-logs` and `POST qa-audit/trail-logs` (ADR 089): JSON resource routes over the audit log, guarded like
 * the screen (view_audit_logs, the auditLogs flag). Errors are `{ errorMessage }`, as the client's request helper reads.
 */
export async function auditEndpoint(request: Request, opts: { trail?: boolean } = {}) {
  const fail = (status: number, errorMessage: string) => Response.json({ errorMessage }, { status });
  if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
  const ctx = await getAppContext(request);
  if (!ctx) return fail(401, 'Sign in first');
  if (!can(ctx, 'view_audit_logs')) return fail(403, "You aren't authorized to see this page.");
  if (!canUseFeature(ctx, 'support/auditLogs')) return fail(403, FEATURE_DENIED_MESSAGE);
  let input: Record<string, unknown>;
  try {
    input = await readInputBody(request);
  } catch (err) {
    return fail(400, (err as Error).message);
  }
  try {
    const q = readAuditQuery(input, opts);
    return Response.json(await auditPageJson({ accountId: ctx.account.id, ...q }));
  } catch (err) {
    if (err instanceof AuditQueryError) return fail(400, err.message);
    throw err;
  }
}
