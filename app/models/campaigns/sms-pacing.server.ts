import { SMS_DEFAULT_PER_SECOND } from '../channels/sms-constants';
import type { SmsSettings } from '../channels/sms.server';

/**
 * SMS campaign pacing per SMS inbox (ADR 066 addendum): providers limit texts per second per sender (a Twilio long
 * code takes about 1 a second; a gateway what its operator says). The inbox's `messagesPerSecond` (Settings → SMS),
 * else the provider's default. One schedule per inbox in this process, shared by every campaign sending through
 * it: each text takes the next free slot, `1/rate` seconds after the previous one.
 */
const nextSlot = new Map<number, number>();

export function smsRate(settings: Pick<SmsSettings, 'provider' | 'messagesPerSecond'>) {
  return settings.messagesPerSecond && settings.messagesPerSecond > 0 ? settings.messagesPerSecond : SMS_DEFAULT_PER_SECOND[settings.provider];
}

/** Waits for this inbox's next slot. */
export async function paceSms(inboxId: number, perSecond: number, now: () => number = Date.now) {
  const gap = 1000 / perSecond;
  const t = now();
  const slot = Math.max(t, nextSlot.get(inboxId) ?? 0);
  nextSlot.set(inboxId, slot + gap);
  if (slot > t) await new Promise((resolve) => setTimeout(resolve, slot - t));
}
