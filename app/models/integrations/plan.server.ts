import { planAllows } from '../plans/enforce.server';

/**
 * Third-party apps' webhooks on a plan without integrations (ADR 157 addendum): the delivery is verified, then
 * answered 200 and ignored. Not a 403: Shopify, Asana and ClickUp remove or suspend a subscription that keeps
 * failing, and the account would have to connect again once its plan has integrations back. Nothing of the
 * delivery is applied, and the answer says why (providers show it in their delivery logs).
 */
export const PLAN_IGNORED = { status: 200, text: 'ignored: the account’s plan does not include integrations' } as const;

export function integrationsInPlan(accountId: number) {
  return planAllows({ accountId, key: 'integrations/enabled' });
}

/** The accounts of a multi-account delivery (one shop or portal connected by several accounts) whose plan has integrations. */
export async function accountsWithIntegrations(accountIds: number[]) {
  const allowed = await Promise.all(accountIds.map((id) => integrationsInPlan(id)));
  return accountIds.filter((_, i) => allowed[i]);
}
