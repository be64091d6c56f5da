import { describe, expect, it } from 'vitest';
import { chooseAgent, roundRobin, urlMatches, type RoutingCandidate } from './routing-choice';

const agent = (userId: number, over: Partial<RoutingCandidate> = {}): RoutingCandidate => ({ userId, online: true, openCount: 0, ...over });

describe('round_robin', () => {
  const candidates = [agent(30), agent(10), agent(20)];
  it('gives the next agent after the cursor in user-id order and wraps around', () => {
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: null,
        candidates,
        cursor: null,
      }),
    ).toEqual({ userId: 10, cursor: 10 });
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: null,
        candidates,
        cursor: 10,
      }),
    ).toEqual({ userId: 20, cursor: 20 });
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: null,
        candidates,
        cursor: 20,
      }),
    ).toEqual({ userId: 30, cursor: 30 });
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: null,
        candidates,
        cursor: 30,
      }),
    ).toEqual({ userId: 10, cursor: 10 });
    // A cursor naming someone who left the pool still moves on to the next id.
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: null,
        candidates,
        cursor: 15,
      }),
    ).toEqual({ userId: 20, cursor: 20 });
  });
  it('ignores presence', () => {
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: null,
        candidates: [agent(1, { online: false })],
        cursor: null,
      }),
    ).toEqual({ userId: 1, cursor: 1 });
  });
  it('skips agents at the limit and gives nothing when everyone is full', () => {
    const full = [agent(10, { openCount: 2 }), agent(20, { openCount: 1 }), agent(30, { openCount: 2 })];
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: 2,
        candidates: full,
        cursor: 20,
      }),
    ).toEqual({ userId: 20, cursor: 20 });
    expect(
      chooseAgent({
        rule: 'round_robin',
        assignLimit: 1,
        candidates: full,
        cursor: null,
      }),
    ).toBeNull();
  });
  it('gives nothing without candidates', () => {
    expect(roundRobin([], null, null)).toBeNull();
  });
});

describe('active_agents', () => {
  it('hands out among online agents only, in turn', () => {
    const candidates = [agent(1, { online: false }), agent(2), agent(3, { online: false }), agent(4)];
    expect(
      chooseAgent({
        rule: 'active_agents',
        assignLimit: null,
        candidates,
        cursor: null,
      }),
    ).toEqual({ userId: 2, cursor: 2 });
    expect(
      chooseAgent({
        rule: 'active_agents',
        assignLimit: null,
        candidates,
        cursor: 2,
      }),
    ).toEqual({ userId: 4, cursor: 4 });
    expect(
      chooseAgent({
        rule: 'active_agents',
        assignLimit: null,
        candidates,
        cursor: 4,
      }),
    ).toEqual({ userId: 2, cursor: 2 });
  });
  it('leaves it unassigned when nobody is online or the online ones are full', () => {
    expect(
      chooseAgent({
        rule: 'active_agents',
        assignLimit: null,
        candidates: [agent(1, { online: false })],
        cursor: null,
      }),
    ).toBeNull();
    expect(
      chooseAgent({
        rule: 'active_agents',
        assignLimit: 3,
        candidates: [agent(1, { openCount: 3 }), agent(2, { online: false })],
        cursor: null,
      }),
    ).toBeNull();
  });
});

describe('last_agent_assigned', () => {
  const candidates = [agent(1), agent(2), agent(3, { online: false })];
  it('returns a returning customer to their agent when online and under the limit, without moving the cursor', () => {
    expect(
      chooseAgent({
        rule: 'last_agent_assigned',
        assignLimit: 5,
        candidates,
        cursor: 1,
        lastAgentId: 2,
      }),
    ).toEqual({ userId: 2, cursor: 1 });
  });
  it('falls back to round robin when that agent is offline, full, or no longer an agent', () => {
    expect(
      chooseAgent({
        rule: 'last_agent_assigned',
        assignLimit: null,
        candidates,
        cursor: 1,
        lastAgentId: 3,
      }),
    ).toEqual({ userId: 2, cursor: 2 });
    const full = [agent(1), agent(2, { openCount: 5 })];
    expect(
      chooseAgent({
        rule: 'last_agent_assigned',
        assignLimit: 5,
        candidates: full,
        cursor: 1,
        lastAgentId: 2,
      }),
    ).toEqual({ userId: 1, cursor: 1 });
    expect(
      chooseAgent({
        rule: 'last_agent_assigned',
        assignLimit: null,
        candidates,
        cursor: null,
        lastAgentId: 99,
      }),
    ).toEqual({ userId: 1, cursor: 1 });
    expect(
      chooseAgent({
        rule: 'last_agent_assigned',
        assignLimit: null,
        candidates,
        cursor: null,
        lastAgentId: null,
      }),
    ).toEqual({ userId: 1, cursor: 1 });
  });
});

describe('team', () => {
  const candidates = [agent(1), agent(2), agent(3), agent(4)];
  it('hands out in turn among the team members only', () => {
    expect(
      chooseAgent({
        rule: 'team',
        assignLimit: null,
        candidates,
        cursor: null,
        teamMemberIds: [2, 4],
      }),
    ).toEqual({ userId: 2, cursor: 2 });
    expect(
      chooseAgent({
        rule: 'team',
        assignLimit: null,
        candidates,
        cursor: 2,
        teamMemberIds: [2, 4],
      }),
    ).toEqual({ userId: 4, cursor: 4 });
    expect(
      chooseAgent({
        rule: 'team',
        assignLimit: null,
        candidates,
        cursor: 4,
        teamMemberIds: [2, 4],
      }),
    ).toEqual({ userId: 2, cursor: 2 });
  });
  it('respects the limit, and gives nothing without a team', () => {
    const full = [agent(2, { openCount: 1 }), agent(4, { openCount: 1 })];
    expect(
      chooseAgent({
        rule: 'team',
        assignLimit: 1,
        candidates: full,
        cursor: 4,
        teamMemberIds: [2, 4],
      }),
    ).toBeNull();
    expect(chooseAgent({ rule: 'team', assignLimit: null, candidates, cursor: null })).toBeNull();
  });
});

describe('load_balancing', () => {
  it('gives the agent with the fewest open conversations, ties by user id', () => {
    const candidates = [agent(3, { openCount: 2 }), agent(2, { openCount: 1 }), agent(1, { openCount: 1 }), agent(4, { openCount: 5 })];
    expect(
      chooseAgent({
        rule: 'load_balancing',
        assignLimit: null,
        candidates,
        cursor: null,
      }),
    ).toEqual({ userId: 1, cursor: null });
  });
  it('never goes over the limit', () => {
    const candidates = [agent(1, { openCount: 4 }), agent(2, { openCount: 4 })];
    expect(
      chooseAgent({
        rule: 'load_balancing',
        assignLimit: 4,
        candidates,
        cursor: null,
      }),
    ).toBeNull();
    expect(
      chooseAgent({
        rule: 'load_balancing',
        assignLimit: 5,
        candidates,
        cursor: null,
      }),
    ).toEqual({ userId: 1, cursor: null });
  });
});

describe('url', () => {
  const subrules = [
    { value: '/pricing', condition: 'contains' as const, userId: 2 },
    {
      value: 'https://shop.example.com',
      condition: 'startsWith' as const,
      userId: 3,
    },
    { value: '.pdf', condition: 'endsWith' as const, userId: 4 },
    { value: 'https://example.com/', condition: 'equals' as const, userId: 1 },
  ];
  const candidates = [agent(1), agent(2, { online: false }), agent(3), agent(4)];
  const pick = (pageUrl: string | null, assignLimit: number | null = null, c = candidates) =>
    chooseAgent({
      rule: 'url',
      assignLimit,
      candidates: c,
      cursor: 7,
      pageUrl,
      subrules,
    });
  it('gives the user of the first subrule whose condition matches', () => {
    expect(pick('https://example.com/Pricing/teams')).toEqual({
      userId: 2,
      cursor: 7,
    });
    expect(pick('https://shop.example.com/pricing')).toEqual({
      userId: 2,
      cursor: 7,
    });
    expect(pick('https://shop.example.com/cart')).toEqual({
      userId: 3,
      cursor: 7,
    });
    expect(pick('https://example.com/guide.PDF')).toEqual({
      userId: 4,
      cursor: 7,
    });
    expect(pick('https://example.com/')).toEqual({ userId: 1, cursor: 7 });
  });
  it('leaves it unassigned when nothing matches, there is no page, or the user is full or not an agent', () => {
    expect(pick('https://example.com/about')).toBeNull();
    expect(pick(null)).toBeNull();
    expect(pick('https://example.com/pricing', 1, [agent(2, { openCount: 1 })])).toBeNull();
    expect(pick('https://example.com/pricing', null, [agent(1)])).toBeNull();
  });
  it('matches each condition exactly as named', () => {
    expect(urlMatches({ value: 'a.com', condition: 'equals', userId: 1 }, 'https://a.com')).toBe(false);
    expect(urlMatches({ value: ' ', condition: 'contains', userId: 1 }, 'https://a.com')).toBe(false);
  });
});
