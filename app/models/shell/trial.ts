type TrialAccount = { subscriptionStatus: string; trialEndsAt: Date | string | null };

/**
 * The trial banner's text (section 2, "Shell"): days left, "less than" one, or expired. Only with billing on
 * (PARLEY_BILLING=on): a self-hosted installation without billing has no trial to count down (ADR 036).
 */
export function trialBanner(account: TrialAccount, opts: { billing: boolean; now?: Date }) {
  const now = opts.now ?? new Date();
  if (!opts.billing || account.subscriptionStatus !== 'trialing' || !account.trialEndsAt) return null;
  const ms = new Date(account.trialEndsAt).getTime() - now.getTime();
  if (ms <= 0) return { expired: true, text: 'Your trial has expired.' };
  if (ms < 86_400_000) return { expired: false, text: 'Less than 1 day left in your trial.' };
  // A trial started a moment ago still has all 14 of its days: count started days.
  const days = Math.ceil(ms / 86_400_000);
  return { expired: false, text: `${days} ${days === 1 ? 'day' : 'days'} left in your trial.` };
}

/** A trial that has run out (billing on only: without billing nothing expires). */
export function isTrialExpired(account: TrialAccount, opts: { billing: boolean; now?: Date }) {
  if (!opts.billing || account.subscriptionStatus !== 'trialing' || !account.trialEndsAt) return false;
  return new Date(account.trialEndsAt).getTime() <= (opts.now ?? new Date()).getTime();
}
