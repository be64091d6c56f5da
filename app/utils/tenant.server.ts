import { data } from '@remix-run/node';
import { findAccountByDomain, type Account } from '../models/accounts/accounts.server';
import { getConfig } from './env.server';
import { requestMemo, requestMemoPrime } from './request-scope.server';

export type Tenant = { kind: 'bare' } | { kind: 'account'; domain: string; account: Account } | { kind: 'unknown'; domain: string } | { kind: 'foreign' };

/** Which host a request is for: the bare APP_HOST, an account's subdomain, or something else. */
export function getTenant(request: Request): Promise<Tenant> {
  const host = hostOf(request);
  // Every loader of a page asks; one lookup per request (request-scope.server.ts).
  return requestMemo(`tenant ${host}`, () => findTenant(host));
}

const hostOf = (request: Request) => new URL(request.url).host.toLowerCase();

/** The account subdomain a host names (`acme` of `acme.APP_HOST`), or null for any other host. */
export function accountDomainOf(request: Request): string | null {
  const host = hostOf(request);
  const appHost = getConfig().appHost;
  if (!host.endsWith(`.${appHost}`)) return null;
  const domain = host.slice(0, -(appHost.length + 1));
  return domain.includes('.') ? null : domain;
}

/** The account a combined read (the app context's, ADR 110) found for this request's host: no second lookup. */
export function primeTenant(request: Request, account: Account) {
  const host = hostOf(request);
  const domain = accountDomainOf(request);
  if (domain) requestMemoPrime(`tenant ${host}`, Promise.resolve<Tenant>({ kind: 'account', domain, account }));
}

async function findTenant(host: string): Promise<Tenant> {
  const appHost = getConfig().appHost;
  if (host === appHost) return { kind: 'bare' };
  if (host.endsWith(`.${appHost}`)) {
    const domain = host.slice(0, -(appHost.length + 1));
    if (domain.includes('.')) return { kind: 'foreign' };
    const account = await findAccountByDomain(domain).catch(rethrowUnavailable);
    return account ? { kind: 'account', domain, account } : { kind: 'unknown', domain };
  }
  return { kind: 'foreign' };
}

const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'CONNECTION_DESTROYED',
  '57P01',
  '57P03',
  '53300',
]);

/** The first query of every request is the tenant lookup: a database that cannot be reached becomes the 503 page. */
export function rethrowUnavailable(err: unknown): never {
  const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  if (code && CONNECTION_ERRORS.has(code)) throw new Response('Looks like our API is down', { status: 503 });
  throw err;
}

/**
 * The account this request's subdomain names; a 404 on the bare host or an unknown subdomain, and the suspended page
 * (503) for an account an operator suspended (ADR 152).
 */
export async function requireAccount(request: Request): Promise<Account> {
  const tenant = await getTenant(request);
  if (tenant.kind === 'foreign') throw misdirected();
  if (tenant.kind !== 'account') throw new Response('Not Found', { status: 404 });
  if (tenant.account.suspendedAt) throw accountSuspended();
  return tenant.account;
}

export type SuspendedData = { suspended: true; message: string };

/** The page a suspended account's users and visitors see: 503 (it comes back), with the words of the error page. */
export function accountSuspended() {
  return data<SuspendedData>(
    { suspended: true, message: 'This account is suspended by the operator of this Parley installation. Nothing has been deleted; it will work again once it is resumed.' },
    { status: 503, headers: { 'Retry-After': '900' } },
  );
}

export async function requireBareHost(request: Request) {
  const tenant = await getTenant(request);
  if (tenant.kind === 'foreign') throw misdirected();
  if (tenant.kind !== 'bare') throw new Response('Not Found', { status: 404 });
}

/** A host that is neither APP_HOST nor one of its subdomains (a misconfigured proxy or DNS): the 418 page. */
function misdirected() {
  return new Response('This host is not served by this Parley installation. Check APP_HOST.', { status: 418 });
}

export function protocolOf(request: Request) {
  return new URL(request.url).protocol;
}

export function accountUrl(request: Request, domain: string, path = '/') {
  return `${protocolOf(request)}//${domain}.${getConfig().appHost}${path}`;
}

/**
 * An account's URL where there is no request to read the scheme from (mail the engine sends): http for a local
 * host (localhost, an IP), https otherwise — a public installation serves HTTPS behind its proxy.
 */
export function accountLink(domain: string, path = '/') {
  const host = getConfig().appHost;
  const local = /^(localhost|127\.|\[::1\]|\d+\.\d+\.\d+\.\d+)/.test(host);
  return `${local ? 'http' : 'https'}://${domain}.${host}${path}`;
}

/** A link on the bare APP_HOST where there is no request (the command line's), with accountLink's scheme rule. */
export function bareLink(path = '/') {
  const host = getConfig().appHost;
  const local = /^(localhost|127\.|\[::1\]|\d+\.\d+\.\d+\.\d+)/.test(host);
  return `${local ? 'http' : 'https'}://${host}${path}`;
}

export function bareUrl(request: Request, path = '/') {
  return `${protocolOf(request)}//${getConfig().appHost}${path}`;
}
