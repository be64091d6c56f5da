import { getConfig } from '~/utils/env.server';
import { requireUser, roleDenied, type AppContext } from '~/utils/session.server';

/**
 * Guard of every billing screen and action (ADR 074): billing on (else 404, as if the route did not exist), and
 * the account's owner — billing is the owner's alone, as the owner role's description says.
 */
export async function requireBilling(request: Request): Promise<AppContext> {
  if (!getConfig().billing) throw new Response('Not Found', { status: 404 });
  const ctx = await requireUser(request);
  if (ctx.role.kind !== 'owner') await roleDenied(request);
  return ctx;
}

export function canManageBilling(ctx: AppContext) {
  return getConfig().billing && ctx.role.kind === 'owner';
}
