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

export type SlaFields = {
  status: string;
  firstResponseDueAt: Date | string | null;
  resolveDueAt: Date | string | null;
  firstRespondedAt: Date | string | null;
  responseBreachedAt: Date | string | null;
  resolveBreachedAt: Date | string | null;
};

/**
 * The SLA target a conversation is racing now: its first response until an agent replied, then its resolution.
 * Null when it has no SLA or has met both.
 */
export function currentSlaTarget(c: SlaFields): { kind: 'response' | 'resolve'; due: Date; breached: boolean } | null {
  const date = (v: Date | string | null) => (v ? new Date(v) : null);
  const responseDue = date(c.firstResponseDueAt);
  if (responseDue && !c.firstRespondedAt)
    return {
      kind: 'response',
      due: responseDue,
      breached: !!c.responseBreachedAt,
    };
  const resolveDue = date(c.resolveDueAt);
  if (resolveDue && c.status !== 'resolved')
    return {
      kind: 'resolve',
      due: resolveDue,
      breached: !!c.resolveBreachedAt,
    };
  return null;
}

/** "Reply by …" / "Resolve by …", red once breached; the time through the one date formatter. */
export function SlaPill({ sla, format }: { sla: SlaFields; format: (d: Date) => string }) {
  const target = currentSlaTarget(sla);
  if (!target) return null;
  const label = target.kind === 'response' ? 'Reply' : 'Resolve';
  return target.breached ? (
    <span className="pill pill-off" data-sla="breached" title={`${label} was due ${format(target.due)}`}>
      {label} overdue
    </span>
  ) : (
    <span className="pill pill-warn" data-sla="due">
      {label} by {format(target.due)}
    </span>
  );
}
