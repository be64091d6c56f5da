import { findAccountByDomain, type Account } from '../models/accounts/accounts.server';
import { getConfig } from './env.server';

export type Tenant = { kind: 'bare' } | { kind: 'account'; domain: string; account: Account } | { kind: 'unknown'; domain: string } | { kind: 'foreign' };

/** Which host a request is for: the bare APP_HOST, an account's subdomain, or something else. */
export async function getTenant(request: Request): Promise<Tenant> {
  const host = new URL(request.url).host.toLowerCase();
  const appHost = getConfig().appHost;
  if (host === appHost) return { kind: 'bare' };
  if (host.endsWith(`.${appHost}`)) {
    const domain = host.slice(0, -(appHost.length + 1));
    if (domain.includes('.')) return { kind: 'foreign' };
    const account = await findAccountByDomain(domain);
    return account ? { kind: 'account', domain, account } : { kind: 'unknown', domain };
  }
  return { kind: 'foreign' };
}

/** The account this request's subdomain names; a 404 on the bare host or an unknown subdomain. */
export async function requireAccount(request: Request): Promise<Account> {
  const tenant = await getTenant(request);
  if (tenant.kind !== 'account') throw new Response('Not Found', { status: 404 });
  return tenant.account;
}

export async function requireBareHost(request: Request) {
  const tenant = await getTenant(request);
  if (tenant.kind !== 'bare') throw new Response('Not Found', { status: 404 });
}

export function protocolOf(request: Request) {
  return new URL(request.url).protocol;
}

export function accountUrl(request: Request, domain: string, path = '/') {
  return `${protocolOf(request)}//${domain}.${getConfig().appHost}${path}`;
}

export function bareUrl(request: Request, path = '/') {
  return `${protocolOf(request)}//${getConfig().appHost}${path}`;
}

/** Only same-origin relative paths are followed after sign-in. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/home') {
  if (!to || typeof to !== 'string') return fallback;
  if (!to.startsWith('/') || to.startsWith('//') || to.startsWith('/\\')) return fallback;
  return to;
}
