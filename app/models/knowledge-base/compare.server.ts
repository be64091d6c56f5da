import { diffWords } from 'diff';

export type DiffPart = { text: string; kind: 'same' | 'added' | 'removed' };

/**
 * A word diff of two versions' texts, split for a side-by-side view: the left side keeps what was removed, the
 * right side what was added (ADR 049; the `diff` library, not a hand-written one).
 */
export function sideBySide(before: string, after: string) {
  const parts = diffWords(before, after);
  const left: DiffPart[] = [];
  const right: DiffPart[] = [];
  for (const p of parts) {
    if (p.added) right.push({ text: p.value, kind: 'added' });
    else if (p.removed) left.push({ text: p.value, kind: 'removed' });
    else {
      left.push({ text: p.value, kind: 'same' });
      right.push({ text: p.value, kind: 'same' });
    }
  }
  return { left, right, changed: parts.some((p) => p.added || p.removed) };
}
