import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, test } from 'vitest';
import { getDb, schema } from '../../db/client';
import { accountHasFeature, createAccountWithOwner } from '../../app/models/accounts/accounts.server';
import { parseConfig, ConfigError } from '../../app/utils/env.server';
import { resetSingleton } from '../../app/utils/singleton.server';

/** Billing is read once from PARLEY_BILLING; each case sets it and reads the configuration again. */
function withBilling(value: 'on' | 'off' | undefined) {
  if (value === undefined) delete process.env.PARLEY_BILLING;
  else process.env.PARLEY_BILLING = value;
  resetSingleton('config');
}
afterEach(() => withBilling(undefined));

describe('billing and the trial (ADR 036)', () => {
  test('PARLEY_BILLING is validated with a clear message', () => {
    expect(parseConfig({}).billing).toBe(false);
    expect(parseConfig({ PARLEY_BILLING: 'on' }).billing).toBe(true);
    expect(() => parseConfig({ PARLEY_BILLING: 'yes' })).toThrow(ConfigError);
    expect(() => parseConfig({ PARLEY_BILLING: 'yes' })).toThrow(/PARLEY_BILLING must be "on"/);
  });

  test('an expired trial keeps every feature without billing and falls back to the free plan with billing on', async () => {
    const domain = `trial${Date.now().toString(36)}`;
    const { account } = await createAccountWithOwner({ domain, firstName: 'Tia', lastName: 'Trial', email: `tia@${domain}.example`, password: 'a-long-password-1' });
    await getDb().update(schema.accounts).set({ trialEndsAt: new Date(Date.now() - 60_000) }).where(eq(schema.accounts.id, account.id));

    withBilling('off');
    expect(await accountHasFeature({ accountId: account.id, key: 'workflowAutomation/slaManagement' })).toBe(true);
    withBilling('on');
    // The free plan: the starter features, no SLA management.
    expect(await accountHasFeature({ accountId: account.id, key: 'workflowAutomation/slaManagement' })).toBe(false);
    expect(await accountHasFeature({ accountId: account.id, key: 'conversation/enabled' })).toBe(true);

    // A trial still running keeps the trial plan's features, billing on or not.
    await getDb().update(schema.accounts).set({ trialEndsAt: new Date(Date.now() + 86_400_000) }).where(eq(schema.accounts.id, account.id));
    expect(await accountHasFeature({ accountId: account.id, key: 'workflowAutomation/slaManagement' })).toBe(true);
  });
});
