import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireBilling } from '~/models/billing/access.server';
import { BillingError, completeCardSetup } from '~/models/billing/billing.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * GET /settings/my-plan/card?session_id=...: where the provider's card page sends the owner back (`card/token`).
 * The provider is asked which card that setup saved; the same return twice adds it once.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireBilling(request);
  const setupId = new URL(request.url).searchParams.get('session_id') ?? '';
  if (!/^[A-Za-z0-9_]{1,200}$/.test(setupId)) throw new Response('The card page returned no setup', { status: 400 });
  try {
    await completeCardSetup({ accountId: ctx.account.id, userId: ctx.user.id, setupId });
  } catch (err) {
    if (err instanceof BillingError) return redirectWithToast('/settings/my-plan', { type: 'error', text: err.message });
    throw err;
  }
  return redirectWithToast('/settings/my-plan', 'Card Added');
}
