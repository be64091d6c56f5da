/** Small labels of the inbox screens: status, priority and tags. */
export function StatusPill({ status }: { status: string }) {
  return <span className={`pill st-${status}`}>{status}</span>;
}

export function PriorityPill({ priority }: { priority: string }) {
  return <span className={`pill prio-${priority}`}>{priority}</span>;
}

/** Section 3's colour names (red, orange...) are CSS colour names too, except a few mapped here. */
const TAG_COLOURS: Record<string, string> = { olive: '#808000', teal: '#008080', violet: '#7f56d9', grey: '#667085' };

export function TagPill({ name, color }: { name: string; color: string }) {
  return (
    <span className="tag" style={{ ['--tag' as string]: TAG_COLOURS[color] ?? color }}>
      {name}
    </span>
  );
}

export function personName(first?: string | null, last?: string | null, fallback?: string | null) {
  return `${first ?? ''} ${last ?? ''}`.trim() || fallback || '';
}
