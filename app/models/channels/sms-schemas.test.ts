import { describe, expect, it } from 'vitest';
import { SmsCreateSchema } from './sms-schemas';

const phoneErrors = (phoneNumber: string) => {
  const r = SmsCreateSchema.safeParse({ provider: 'custom_sms', name: 'Texts', phoneNumber, authToken: 'secret', webhookUrl: 'https://gw.example.test/sms', threadingInterval: 1, autoResolvedDays: 0, assigneeIds: [1], messagesPerSecond: 1 });
  return (r.error?.issues ?? []).filter((i) => i.path[0] === 'phoneNumber').map((i) => i.message);
};

describe('SMS phone number (section 5 "International phone")', () => {
  it('a plus sign and 4 to 14 digits; more digits say "Phone number must have 14 digits."', () => {
    expect(phoneErrors('+14155550100')).toEqual([]);
    expect(phoneErrors('+1234')).toEqual([]);
    expect(phoneErrors('+123456789012345')).toEqual(['Phone number must have 14 digits.']);
    expect(phoneErrors('+123')).toEqual(['Enter a valid phone number']);
    expect(phoneErrors('4155550100')).toEqual(['Enter a valid phone number']);
    expect(phoneErrors('+1 415 555')).toEqual(['Enter a valid phone number']);
  });
});
