import { describe, expect, it } from 'vitest';
import { checkCondition, evaluateRule, hostOf, textMatches, type Facts, type RuleToEvaluate } from './evaluate';

const facts = (over: Partial<Facts> = {}): Facts => ({
  eventType: 'conversation_created',
  conversation: {
    id: 7,
    subject: 'Refund for order 1234',
    inboxId: 3,
    sourceType: 'email',
    assigneeId: null,
    status: 'open',
    priority: 0,
  },
  contact: {
    id: 11,
    email: 'Ada@Example.COM',
    firstName: 'Ada',
    lastName: 'Lovelace',
    country: 'GB',
    companyId: 5,
    companyName: 'Analytical Engines',
    isNew: true,
  },
  page: {
    url: 'https://shop.test/pricing?plan=pro',
    referrer: 'https://www.google.com/search?q=parley',
  },
  rating: null,
  ...over,
});

const rule = (over: Partial<RuleToEvaluate> = {}): RuleToEvaluate => ({
  event: 'conversation_created',
  conditions: [],
  conditionOperator: 'and',
  filters: [],
  ...over,
});

describe('evaluateRule', () => {
  it('matches a rule without conditions on its event only', () => {
    expect(evaluateRule(rule(), facts())).toMatchObject({
      matched: true,
      reason: 'the rule has no conditions',
    });
    const other = evaluateRule(rule({ event: 'contact_created' }), facts());
    expect(other.matched).toBe(false);
    expect(other.decidedBy).toMatchObject({
      part: 'event',
      actual: 'conversation_created',
    });
  });

  it('reports the first failing condition of an and, and passes an or when one holds', () => {
    const conditions = [
      { field: 'new_contact', op: 'is', value: '' },
      { field: 'country', op: 'equal', value: 'FR' },
    ] as RuleToEvaluate['conditions'];
    const and = evaluateRule(rule({ conditions }), facts());
    expect(and.matched).toBe(false);
    expect(and.decidedBy).toMatchObject({
      part: 'condition',
      index: 1,
      field: 'country',
      actual: 'GB',
    });
    expect(and.reason).toContain('condition 2');
    expect(evaluateRule(rule({ conditions, conditionOperator: 'or' }), facts()).matched).toBe(true);
    const none = evaluateRule(rule({ conditions: [conditions[1]], conditionOperator: 'or' }), facts());
    expect(none).toMatchObject({
      matched: false,
      reason: 'no condition holds',
    });
  });

  it('new and repeat contacts are opposites, and unknown without a contact', () => {
    expect(checkCondition({ field: 'new_contact', op: 'is', value: '' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'repeat_contact', op: 'is', value: '' }, facts()).ok).toBe(false);
    const repeat = facts({ contact: { ...facts().contact!, isNew: false } });
    expect(checkCondition({ field: 'repeat_contact', op: 'is', value: '' }, repeat).ok).toBe(true);
    expect(checkCondition({ field: 'new_contact', op: 'is', value: '' }, facts({ contact: null })).ok).toBe(false);
    expect(checkCondition({ field: 'repeat_contact', op: 'is', value: '' }, facts({ contact: null })).ok).toBe(false);
  });

  it('page and referral conditions read the visitor’s page', () => {
    expect(checkCondition({ field: 'page_url_contain', op: 'contain', value: '/pricing' }, facts()).ok).toBe(true);
    expect(
      checkCondition(
        {
          field: 'page_url_match',
          op: 'equal',
          value: 'shop.test/pricing?plan=pro/',
        },
        facts(),
      ).ok,
    ).toBe(true);
    expect(
      checkCondition(
        {
          field: 'page_url_match',
          op: 'equal',
          value: 'https://shop.test/pricing',
        },
        facts(),
      ).ok,
    ).toBe(false);
    expect(checkCondition({ field: 'referral_domain', op: 'equal', value: 'google.com' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'referral_domain', op: 'equal', value: 'bing.com' }, facts()).ok).toBe(false);
    expect(checkCondition({ field: 'referral_url', op: 'contain', value: 'q=parley' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'page_url_contain', op: 'contain', value: 'x' }, facts({ page: null })).ok).toBe(false);
  });

  it('numeric fields compare as numbers with above, below and equal', () => {
    const rated = facts({ rating: 2 });
    expect(checkCondition({ field: 'rating', op: 'below', value: '3' }, rated).ok).toBe(true);
    expect(checkCondition({ field: 'rating', op: 'above', value: '3' }, rated).ok).toBe(false);
    expect(checkCondition({ field: 'rating', op: 'equal', value: '2' }, rated).ok).toBe(true);
    expect(checkCondition({ field: 'rating', op: 'equal', value: '2' }, facts()).ok).toBe(false);
    expect(checkCondition({ field: 'company', op: 'equal', value: '5' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'contacts', op: 'equal', value: '11' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'assignees', op: 'equal', value: '1' }, facts()).ok).toBe(false);
  });

  it('the domain condition reads the contact’s address, case-insensitively', () => {
    expect(checkCondition({ field: 'domain', op: 'equal', value: 'example.com' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'domain', op: 'contain', value: 'example' }, facts()).ok).toBe(true);
    expect(checkCondition({ field: 'domain', op: 'above', value: 'example.com' }, facts()).ok).toBe(false);
  });

  it('every filter must match, with the text operators', () => {
    const subject = {
      field: 'subject',
      op: 'contains',
      value: 'refund',
    } as const;
    expect(evaluateRule(rule({ filters: [subject] }), facts()).matched).toBe(true);
    const withCompany = evaluateRule(
      rule({
        filters: [subject, { field: 'company', op: 'startsWith', value: 'Babbage' }],
      }),
      facts(),
    );
    expect(withCompany).toMatchObject({
      matched: false,
      decidedBy: { part: 'filter', index: 1, actual: 'Analytical Engines' },
    });
    expect(evaluateRule(rule({ filters: [{ field: 'domain', op: 'endsWith', value: '.com' }] }), facts()).matched).toBe(true);
    expect(
      evaluateRule(
        rule({
          filters: [{ field: 'contact', op: 'equals', value: 'ada@example.com' }],
        }),
        facts(),
      ).matched,
    ).toBe(true);
    expect(evaluateRule(rule({ filters: [{ field: 'assignee', op: 'equals', value: '4' }] }), facts()).matched).toBe(false);
  });

  it('inbox rules only look at their sources and source type', () => {
    expect(evaluateRule(rule({ sources: [3, 4] }), facts()).matched).toBe(true);
    expect(evaluateRule(rule({ sources: [4] }), facts())).toMatchObject({
      matched: false,
      decidedBy: { part: 'source', actual: 3 },
    });
    const survey = facts({
      eventType: 'survey_received',
      sourceType: 'email',
      conversation: null,
    });
    expect(evaluateRule(rule({ event: 'survey_received', sourceType: 'web' }), survey).matched).toBe(false);
    expect(evaluateRule(rule({ event: 'survey_received', sourceType: 'email' }), survey).matched).toBe(true);
  });
});

describe('text helpers', () => {
  it('match operators ignore case and surrounding spaces', () => {
    expect(textMatches(' Hello World ', 'startsWith', 'hello')).toBe(true);
    expect(textMatches('Hello', 'endsWith', 'LO')).toBe(true);
    expect(textMatches('Hello', 'contains', '')).toBe(false);
    expect(textMatches(null, 'equals', '')).toBe(true);
  });
  it('hostOf drops www and tolerates junk', () => {
    expect(hostOf('https://www.Example.com/x')).toBe('example.com');
    expect(hostOf('not a url')).toBe('');
  });
});
