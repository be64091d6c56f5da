import { describe, expect, it } from 'vitest';
import { urlMatches } from './constants';

describe('URL goals: urlMatches (ADR 120)', () => {
  it('compares a value starting with / with the path, anything else with the whole URL, ignoring case', () => {
    expect(urlMatches({ op: 'equals', value: '/thank-you' }, 'https://shop.test/Thank-You/?order=1#top')).toBe(true);
    expect(urlMatches({ op: 'equals', value: '/thank-you' }, 'https://shop.test/thank-you/more')).toBe(false);
    expect(urlMatches({ op: 'starts_with', value: '/checkout/' }, 'https://shop.test/checkout/done')).toBe(true);
    expect(urlMatches({ op: 'starts_with', value: '/checkout/' }, 'https://shop.test/cart?next=/checkout/')).toBe(false);
    expect(urlMatches({ op: 'contains', value: 'pricing' }, 'https://shop.test/en/pricing?x=1')).toBe(true);
    expect(urlMatches({ op: 'contains', value: 'order=1' }, 'https://shop.test/done?order=1')).toBe(true);
    expect(urlMatches({ op: 'equals', value: 'https://shop.test/' }, 'https://shop.test')).toBe(true);
    expect(urlMatches({ op: 'equals', value: '/' }, 'https://shop.test/')).toBe(true);
    expect(urlMatches({ op: 'contains', value: '  ' }, 'https://shop.test/')).toBe(false);
  });
});
