import { createCookie, redirect } from '@remix-run/node';
import { endOperatorSession, findOperatorSession } from '../models/operations/operators.server';
import { getConfig } from './env.server';
import { requestMemo } from './request-scope.server';
import { singleton } from './singleton.server';
import { requireBareHost } from './tenant.server';

/**
 * The operator's console (ADR 152) lives on the bare APP_HOST under /operator, with a cookie of its own: host-only
 * (no Domain attribute), so an account subdomain never receives it. Its path is `/`, not `/operator`: with JavaScript,
 * Remix fetches the console's own page data from `/operator.data`, which a cookie of path `/operator` does not match
 * (the sign-in then looped between /operator and /operator/signin). An account's session cookie means nothing here,
 * and this one nothing on an account.
 */
function operatorCookie() {
  return singleton('operator-cookie', () =>
    createCookie('__parley_operator', { httpOnly: true, sameSite: 'lax', path: '/', secrets: [getConfig().sessionSecret] }),
  );
}

const isHttps = (request: Request) => new URL(request.url).protocol === 'https:';

export async function readOperatorSessionId(request: Request): Promise<string | null> {
  const value = await operatorCookie().parse(request.headers.get('Cookie'));
  return typeof value === 'string' ? value : null;
}

export function operatorSessionCookie(request: Request, id: string) {
  return operatorCookie().serialize(id, { secure: isHttps(request) });
}

export function clearOperatorCookie(request: Request) {
  return operatorCookie().serialize('', { maxAge: 0, secure: isHttps(request) });
}

export type OperatorContext = { operator: { id: number; email: string } };

/** The signed-in operator of this request, or null; a 404 anywhere but the bare host. */
export async function getOperator(request: Request): Promise<OperatorContext | null> {
  // Outside the memo: each loader of a page throws its own Response (a shared one's body can be read only once).
  await requireBareHost(request);
  const found = await requestMemo(`operator ${request.headers.get('cookie') ?? ''}`, async () => findOperatorSession(await readOperatorSessionId(request)));
  if (found.state === 'idle') throw redirect('/operator/signin?idle=1', { headers: { 'Set-Cookie': await clearOperatorCookie(request) } });
  return found.state === 'active' ? { operator: found.operator } : null;
}

/**
 * Guard of every loader and action of the console: the signed-in operator, or a redirect to the operator sign-in.
 * Off the bare host (an account's subdomain) the console does not exist: 404.
 */
export async function requireOperator(request: Request): Promise<OperatorContext> {
  const ctx = await getOperator(request);
  if (!ctx) throw redirect('/operator/signin');
  return ctx;
}

export async function signOutOperator(request: Request) {
  await endOperatorSession(await readOperatorSessionId(request));
  return clearOperatorCookie(request);
}
