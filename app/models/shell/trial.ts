type TrialAccount = { subscriptionStatus: string; trialEndsAt: Date | string | null };

/**
 * The trial banner's text (section 2, "Shell"): days left, "less than" one, or expired. Only with billing on
 * (PARLEY_BILLING=on): a self-hosted installation without billing has no trial to count down (ADR 036).
 */
export function trialBanner(account: TrialAccount, opts: { billing: boolean; now?: Date }) {
  const now = opts.now ?? new Date();
  // Dunning (ADR 074): the same banner tells of a failed payment and of a subscription that has ended.
  if (opts.billing && account.subscriptionStatus === 'past_due') return { expired: true, text: 'Your last payment failed. Update your card to keep your plan.' };
  if (opts.billing && account.subscriptionStatus === 'expired') return { expired: true, text: "Your subscription has ended: your account has the free plan's features." };
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

/**
 * A subscription that no longer pays for its plan (billing on only, ADR 074): ended (expired), or past due for
 * longer than the grace period. The account then has the free plan's features; nothing is deleted.
 */
export function isSubscriptionLapsed(account: { subscriptionStatus: string; pastDueSince: Date | string | null }, opts: { billing: boolean; graceDays: number; now?: Date }) {
  if (!opts.billing) return false;
  if (account.subscriptionStatus === 'expired') return true;
  if (account.subscriptionStatus !== 'past_due' || !account.pastDueSince) return false;
  return new Date(account.pastDueSince).getTime() + opts.graceDays * 86_400_000 <= (opts.now ?? new Date()).getTime();
}
