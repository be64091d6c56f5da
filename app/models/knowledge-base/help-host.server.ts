import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { Account } from '../accounts/accounts.server';
import { getConfig } from '../../utils/env.server';
import { accountUrl, protocolOf, requireAccount } from '../../utils/tenant.server';

/** Set only by server/help-host.ts (which removes a client's own value): the knowledge base this help host serves. */
const HELP_KB_HEADER = 'x-parley-help-kb';

/** Whether this request came in on a help host ({slug}.HELP_HOST or a custom domain) (ADR 056). */
export function isHelpHostRequest(request: Request) {
  return request.headers.has(HELP_KB_HEADER);
}

/**
 * The account whose help centre this request reads: on a help host, the owner of the knowledge base the host names;
 * on the account host, the host's account. The route then scopes every query by this account as before.
 */
export async function requireHelpAccount(request: Request): Promise<Account> {
  const kbId = Number(request.headers.get(HELP_KB_HEADER));
  if (!request.headers.has(HELP_KB_HEADER)) return requireAccount(request);
  if (!Number.isSafeInteger(kbId) || kbId <= 0) throw new Response('Not Found', { status: 404 });
  const [row] = await getDb()
    .select({ account: schema.accounts })
    .from(schema.knowledgeBases)
    .innerJoin(schema.accounts, eq(schema.accounts.id, schema.knowledgeBases.accountId))
    .where(eq(schema.knowledgeBases.id, kbId));
  if (!row) throw new Response('Not Found', { status: 404 });
  return row.account as Account;
}

/**
 * The public address of a help-centre path (`/hc/{slug}/...`): on the help host itself without the prefix; from
 * the account host, the help host's address when HELP_HOST is set (so canonical links name one address), else the
 * account host's.
 */
export function helpUrl(request: Request, domain: string, path: string) {
  const m = /^\/hc\/([^/?]+)(.*)$/.exec(path);
  if (!m) return accountUrl(request, domain, path);
  const rest = m[2] || '/';
  if (isHelpHostRequest(request)) return `${protocolOf(request)}//${new URL(request.url).host}${rest}`;
  const helpHost = getConfig().helpHost;
  if (helpHost) return `${protocolOf(request)}//${m[1]}.${helpHost}${rest}`;
  return accountUrl(request, domain, path);
}

/**
 * Where Preview opens a knowledge base's public help centre (section 2): its custom domain (cname) when set, otherwise
 * its subdomain of the help-centre domain ({slug}.HELP_HOST), or /hc/{slug} on the account host where none is set.
 */
export function helpCentreAddress(request: Request, domain: string, kb: { slug: string; cname: string | null }) {
  if (kb.cname) return `${protocolOf(request)}//${kb.cname.toLowerCase()}/`;
  return helpUrl(request, domain, `/hc/${kb.slug}`);
}
