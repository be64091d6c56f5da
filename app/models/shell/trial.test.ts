import { describe, expect, it } from 'vitest';
import { isTrialExpired, trialBanner } from './trial';

const now = new Date('2026-11-21T12:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('trialBanner', () => {
  it('shows the days left, counting a started day', () => {
    expect(trialBanner({ subscriptionStatus: 'trialing', trialEndsAt: at(14 * 86_400_000) }, { billing: true, now })?.text).toBe('14 days left in your trial.');
    expect(trialBanner({ subscriptionStatus: 'trialing', trialEndsAt: at(14 * 86_400_000 - 60_000) }, { billing: true, now })?.text).toBe('14 days left in your trial.');
  });
  it('says one day', () => expect(trialBanner({ subscriptionStatus: 'trialing', trialEndsAt: at(86_400_000) }, { billing: true, now })?.text).toBe('1 day left in your trial.'));
  it('says less than one day', () => expect(trialBanner({ subscriptionStatus: 'trialing', trialEndsAt: at(3600_000) }, { billing: true, now })?.text).toBe('Less than 1 day left in your trial.'));
  it('says expired once the end has passed', () => expect(trialBanner({ subscriptionStatus: 'trialing', trialEndsAt: at(-1) }, { billing: true, now })).toEqual({ expired: true, text: 'Your trial has expired.' }));
  it('shows nothing without billing (a self-hosted installation)', () =>
    expect(trialBanner({ subscriptionStatus: 'trialing', trialEndsAt: at(86_400_000) }, { billing: false, now })).toBeNull());
  it('expires a trial only with billing on', () => {
    expect(isTrialExpired({ subscriptionStatus: 'trialing', trialEndsAt: at(-1) }, { billing: true, now })).toBe(true);
    expect(isTrialExpired({ subscriptionStatus: 'trialing', trialEndsAt: at(-1) }, { billing: false, now })).toBe(false);
    expect(isTrialExpired({ subscriptionStatus: 'trialing', trialEndsAt: at(60_000) }, { billing: true, now })).toBe(false);
  });
  it('shows nothing outside a trial', () => expect(trialBanner({ subscriptionStatus: 'active', trialEndsAt: at(-1) }, { billing: true, now })).toBeNull());
});
