import { guardedRequest, OutboundRefusedError } from '../../utils/outbound-guard.server';
import { getLogger } from '../../utils/logger.server';
import { metrics } from '../../utils/metrics.server';
import { parseJsonObject } from '../../utils/json';
import { OAuth2Error, type OAuth2Tokens } from '../../utils/oauth2.server';
import type { TokenSet } from './connections.server';

/** What a provider answered, in words an agent can read; never a token, never the raw body. */
export class IntegrationError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A call of the one OAuth 2.0 client (app/utils/oauth2.server.ts, ADR 097), its failures as IntegrationError. */
export async function viaOAuth<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof OAuth2Error) throw new IntegrationError(err.message, err.status);
    throw err;
  }
}

/** The OAuth client's tokens as a connection stores them. */
export const tokenSet = (t: OAuth2Tokens): TokenSet => ({ accessToken: t.accessToken, refreshToken: t.refreshToken, expiresAt: t.expiresAt, scopes: t.scope ?? '' });

/**
 * One call to a provider's API through the outbound guard (ADR 021): no redirects followed, a timeout, a bounded
 * body. `label` names the provider in messages; the request's headers (with the token) never reach the log.
 */
export async function providerCall(
  label: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; json?: unknown; form?: Record<string, string> },
): Promise<{ status: number; body: unknown; headers: Record<string, string | string[] | undefined> }> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Parley', ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  let res;
  try {
    res = await guardedRequest(url, { method: init.method ?? 'GET', headers, body, timeoutMs: 15_000, maxBytes: 2 * 1024 * 1024 });
  } catch (err) {
    const refused = err instanceof OutboundRefusedError;
    metrics().integrationFailures.inc({ provider: label, kind: 'unreachable' });
    getLogger().warn({ provider: label, path: new URL(url).pathname, err: (err as Error).message }, 'integration call failed');
    throw new IntegrationError(refused ? `${label} was refused: its address is not a public internet address` : `${label} could not be reached`, 0);
  }
  const parsed: unknown = res.text ? (parseJsonObject(res.text) ?? safeJson(res.text)) : null;
  if (!res.ok) {
    metrics().integrationFailures.inc({ provider: label, kind: 'refused' });
    getLogger().warn({ provider: label, path: new URL(url).pathname, status: res.status }, 'integration call refused');
    throw new IntegrationError(`${label} answered: ${describeError(parsed) ?? `HTTP ${res.status}`}`, res.status);
  }
  return { status: res.status, body: parsed, headers: res.headers ?? {} };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The message of the usual error shapes: { message }, { error }, { err } (ClickUp), { errors: string | {field: [..]} | [{message}] }. */
function describeError(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (typeof b.error_description === 'string') return b.error_description.slice(0, 200);
  if (typeof b.message === 'string') return b.message.slice(0, 200);
  if (typeof b.error === 'string') return b.error.slice(0, 200);
  if (typeof b.errors === 'string') return b.errors.slice(0, 200);
  if (typeof b.err === 'string') return b.err.slice(0, 200);
  if (Array.isArray(b.errors)) return b.errors.map((e) => (typeof e === 'string' ? e : (e as { message?: string })?.message ?? '')).join('; ').slice(0, 200);
  if (b.errors && typeof b.errors === 'object') return Object.entries(b.errors as Record<string, unknown>).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('; ').slice(0, 200);
  return null;
}
