import type { Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import type { DomainEventType } from '../events/types';
import { PRODUCTIVITY_PAGE_SIZE } from './schemas';

/** Bad input found by a rule the form schema cannot see (a name already used, an inbox of another account). Routes answer 400. */
export class FieldInputError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export const isUniqueViolation = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === '23505';

/** `q` as an ILIKE pattern that matches it literally anywhere in the text. */
export function likePattern(q: string) {
  return `%${q.replace(/[\\%_]/g, (x) => `\\${x}`)}%`;
}

/** The search text of a list: trimmed, bounded, undefined when empty. */
export function cleanQuery(q: string | null | undefined) {
  const t = q?.trim().slice(0, 100);
  return t ? t : undefined;
}

export function paging(opts: { page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? PRODUCTIVITY_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The audit trail of a settings row: who created, changed or deleted what, in the change's transaction. */
export function recordChange(
  tx: Tx,
  opts: { accountId: number; actorId: number | null; type: DomainEventType; subjectType: string; subjectId: number; payload: Record<string, unknown> },
) {
  return emitEvent(tx, {
    accountId: opts.accountId,
    type: opts.type,
    subjectType: opts.subjectType,
    subjectId: opts.subjectId,
    payload: opts.payload,
    actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
  });
}
