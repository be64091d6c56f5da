/** The trial banner's text (section 2, "Shell"): days left, "less than" one, or expired. */
export function trialBanner(account: { subscriptionStatus: string; trialEndsAt: Date | string | null }, now = new Date()) {
  if (account.subscriptionStatus !== 'trialing' || !account.trialEndsAt) return null;
  const ms = new Date(account.trialEndsAt).getTime() - now.getTime();
  if (ms <= 0) return { expired: true, text: 'Your trial has expired.' };
  if (ms < 86_400_000) return { expired: false, text: 'Less than 1 day left in your trial.' };
  // A trial started a moment ago still has all 14 of its days: count started days.
  const days = Math.ceil(ms / 86_400_000);
  return { expired: false, text: `${days} ${days === 1 ? 'day' : 'days'} left in your trial.` };
}
