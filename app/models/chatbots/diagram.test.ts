import { describe, expect, it } from 'vitest';
import { flowDiagram } from './diagram.server';
import { SAMPLE_FLOW } from './sample-flow';

describe('the flow diagram', () => {
  it('places steps in rows by distance from step 1, labels the ways on, and marks ways back', () => {
    const d = flowDiagram(SAMPLE_FLOW);
    expect(d.nodes).toHaveLength(SAMPLE_FLOW.length);
    const y = (id: string) => d.nodes.find((n) => n.id === id)!.y;
    expect(y('s1')).toBeLessThan(y('s2'));
    expect(y('s3')).toBe(y('s4'));
    expect(d.edges).toContainEqual({ from: 's2', to: 's5', label: 'Pricing', back: false });
    expect(d.edges).toContainEqual({ from: 's7', to: 's10', label: 'closed', back: false });
    expect(d.nodes[0].title).toBe('1. Send a message');
    // Nothing reaches a step: it still shows, in a last row.
    const lone = flowDiagram([...SAMPLE_FLOW, { id: 's11', type: 'message', text: 'Alone', next: 's1' }]);
    const s11 = lone.nodes.find((n) => n.id === 's11')!;
    expect(s11.y).toBeGreaterThan(Math.max(...d.nodes.map((n) => n.y)));
    expect(lone.edges).toContainEqual({ from: 's11', to: 's1', label: '', back: true });
    for (const n of d.nodes) expect(n.x + 210).toBeLessThanOrEqual(d.width);
  });
});
