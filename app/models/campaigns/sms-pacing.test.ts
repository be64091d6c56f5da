import { describe, expect, it } from 'vitest';
import { paceSms, smsRate } from './sms-pacing.server';

describe('SMS pacing', () => {
  it("uses the inbox's rate, else the provider's default", () => {
    expect(smsRate({ provider: 'twilio' })).toBe(1);
    expect(smsRate({ provider: 'custom_sms' })).toBe(10);
    expect(smsRate({ provider: 'twilio', messagesPerSecond: 30 })).toBe(30);
  });

  it('spaces the texts of one inbox 1/rate apart, and leaves other inboxes alone', async () => {
    const started = Date.now();
    const sentAt: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map(async () => (await paceSms(9_001, 20), sentAt.push(Date.now() - started))));
    // Five texts at 20 a second: the fifth waits four gaps of 50 ms.
    expect(Math.max(...sentAt)).toBeGreaterThanOrEqual(195);
    const other = Date.now();
    await paceSms(9_002, 20);
    expect(Date.now() - other).toBeLessThan(50);
  });
});
