import { describe, expect, it } from 'vitest';
import { agentsNeeded, erlangC, serviceLevel } from './erlang';

/**
 * Against the published Erlang C table of the classic worked example (Call Centre Helper, "Erlang C formula –
 * made simple"): 100 calls in 30 minutes, 180 s handling time (10 Erlangs), 20 s target.
 */
describe('Erlang C', () => {
  it('gives the published probabilities of waiting', () => {
    expect(erlangC(11, 10)).toBeCloseTo(0.6821, 4);
    expect(erlangC(12, 10)).toBeCloseTo(0.4494, 4);
    expect(erlangC(13, 10)).toBeCloseTo(0.2853, 4);
    expect(erlangC(14, 10)).toBeCloseTo(0.1741, 4);
    expect(erlangC(10, 10)).toBe(1);
  });
  it('gives the published service levels and the agents needed for 80/20', () => {
    const sl = (agents: number) => serviceLevel({ agents, traffic: 10, targetSeconds: 20, handlingSeconds: 180 });
    expect(sl(11)).toBeCloseTo(0.3896, 3);
    expect(sl(12)).toBeCloseTo(0.6402, 3);
    expect(sl(13)).toBeCloseTo(0.7956, 3);
    expect(sl(14)).toBeCloseTo(0.8884, 3);
    expect(agentsNeeded({ arrivalsPerHour: 200, handlingSeconds: 180, targetSeconds: 20, share: 0.8 })).toBe(14);
    expect(agentsNeeded({ arrivalsPerHour: 0, handlingSeconds: 180, targetSeconds: 20, share: 0.8 })).toBe(0);
  });
});
