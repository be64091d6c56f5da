import { STEP_LABELS, type ChatbotStep } from './constants';
import { targetsOf } from './flow.server';

/**
 * The flow as a diagram (issue 17: "with JavaScript it may show the flow as a diagram"): laid out on the server and
 * drawn as an inline SVG, so it shows with or without JavaScript and costs the page no script. Steps are placed in
 * rows by their distance from step 1 (breadth first); steps nothing reaches go in a last row. Edges carry the button,
 * word or hours label that leads along them.
 */
export type FlowDiagram = {
  width: number;
  height: number;
  nodes: { id: string; x: number; y: number; title: string; kind: string }[];
  edges: { from: string; to: string; label: string; back: boolean }[];
};

export const NODE = { w: 210, h: 46, gapX: 24, gapY: 54, pad: 16 } as const;

function labelledTargets(step: ChatbotStep): { to: string | null; label: string }[] {
  const cut = (t: string) => (t.length > 18 ? `${t.slice(0, 17)}…` : t);
  switch (step.type) {
    case 'question':
      return [...step.choices.map((c) => ({ to: c.next, label: cut(c.label) })), { to: step.next, label: 'other answer' }];
    case 'branch':
      return [...step.rules.map((r) => ({ to: r.next, label: cut(`"${r.contains}"`) })), { to: step.next, label: 'otherwise' }];
    case 'hours':
      return [
        { to: step.open, label: 'open' },
        { to: step.closed, label: 'closed' },
      ];
    default:
      return targetsOf(step).map((to) => ({ to, label: '' }));
  }
}

export function flowDiagram(steps: ChatbotStep[]): FlowDiagram {
  const depth = new Map<string, number>();
  const byId = new Map(steps.map((s) => [s.id, s]));
  if (steps[0]) {
    depth.set(steps[0].id, 0);
    const queue = [steps[0].id];
    while (queue.length) {
      const id = queue.shift()!;
      for (const { to } of labelledTargets(byId.get(id)!)) {
        if (to && byId.has(to) && !depth.has(to)) {
          depth.set(to, depth.get(id)! + 1);
          queue.push(to);
        }
      }
    }
  }
  const last = Math.max(-1, ...depth.values()) + 1;
  const rows: string[][] = [];
  for (const s of steps) (rows[depth.get(s.id) ?? last] ??= []).push(s.id);
  const widest = Math.max(1, ...rows.map((r) => r?.length ?? 0));
  const width = NODE.pad * 2 + widest * NODE.w + (widest - 1) * NODE.gapX;
  const nodes: FlowDiagram['nodes'] = [];
  rows.forEach((row, r) => {
    if (!row) return;
    const rowWidth = row.length * NODE.w + (row.length - 1) * NODE.gapX;
    row.forEach((id, i) => {
      const step = byId.get(id)!;
      nodes.push({
        id,
        x: (width - rowWidth) / 2 + i * (NODE.w + NODE.gapX),
        y: NODE.pad + r * (NODE.h + NODE.gapY),
        title: `${steps.indexOf(step) + 1}. ${STEP_LABELS[step.type] ?? step.type}`,
        kind: step.type,
      });
    });
  });
  const rowOf = (id: string) => depth.get(id) ?? last;
  const edges: FlowDiagram['edges'] = [];
  for (const s of steps)
    for (const { to, label } of labelledTargets(s)) if (to && byId.has(to)) edges.push({ from: s.id, to, label, back: rowOf(to) <= rowOf(s.id) });
  const height = NODE.pad * 2 + rows.length * NODE.h + Math.max(0, rows.length - 1) * NODE.gapY;
  return { width, height, nodes, edges };
}
