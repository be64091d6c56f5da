import type { FlowDiagram as Diagram } from '~/models/chatbots/diagram.server';

const NODE_W = 210;
const NODE_H = 46;

/** The flow drawn as an inline SVG (laid out on the server, no script): a box per step, an arrow per way on. */
export function FlowDiagram({ diagram }: { diagram: Diagram }) {
  const at = new Map(diagram.nodes.map((n) => [n.id, n]));
  return (
    <div style={{ overflowX: 'auto', maxWidth: '100%' }} data-testid="flow-diagram">
      <svg viewBox={`0 0 ${diagram.width + 60} ${diagram.height}`} width={diagram.width + 60} height={diagram.height} role="img" aria-label="Flow diagram" style={{ maxWidth: 'none', font: '12px system-ui, sans-serif' }}>
        <defs>
          <marker id="flow-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
            <path d="M0 0L8 4L0 8z" fill="currentColor" />
          </marker>
        </defs>
        {diagram.edges.map((e, i) => {
          const a = at.get(e.from)!;
          const b = at.get(e.to)!;
          const x1 = a.x + NODE_W / 2;
          const y1 = a.y + NODE_H;
          const x2 = b.x + NODE_W / 2;
          const y2 = b.y;
          // A way back up (or sideways) bends round the right of the boxes.
          const d = e.back
            ? `M${a.x + NODE_W} ${a.y + NODE_H / 2} C${a.x + NODE_W + 40} ${a.y + NODE_H / 2} ${b.x + NODE_W + 40} ${b.y + NODE_H / 2} ${b.x + NODE_W} ${b.y + NODE_H / 2}`
            : `M${x1} ${y1} C${x1} ${y1 + 28} ${x2} ${y2 - 28} ${x2} ${y2}`;
          return (
            <g key={i}>
              <path d={d} fill="none" stroke="currentColor" strokeOpacity="0.6" strokeWidth="1.2" markerEnd="url(#flow-arrow)" />
              {e.label ? (
                <text x={e.back ? a.x + NODE_W + 6 : (x1 + x2) / 2} y={e.back ? a.y + NODE_H / 2 - 4 : (y1 + y2) / 2} textAnchor={e.back ? 'start' : 'middle'} fill="currentColor">
                  {e.label}
                </text>
              ) : null}
            </g>
          );
        })}
        {diagram.nodes.map((n) => (
          <g key={n.id}>
            <rect x={n.x} y={n.y} width={NODE_W} height={NODE_H} rx="8" fill="Canvas" stroke="currentColor" strokeWidth="1.2" />
            <text x={n.x + NODE_W / 2} y={n.y + NODE_H / 2 + 4} textAnchor="middle" fill="currentColor">
              {n.title}
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
}
