import { z } from 'zod';
export { filtersToSearch } from './filters-search';
import { CONVERSATION_STATUSES, PRIORITIES, SOURCE_TYPES } from '../../../db/schema/inbox-constants';

const optionalId = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number)
  .optional()
  .catch(undefined);

/**
 * The inbox list's filters, read from GET parameters (bookmarkable; no JavaScript needed). Anything
 * malformed is ignored rather than failing the page.
 */
export const ConversationFiltersSchema = z.object({
  status: z.enum([...CONVERSATION_STATUSES, 'all']).optional().catch(undefined),
  assignee: z
    .union([z.enum(['mine', 'unassigned']), z.string().regex(/^\d{1,9}$/)])
    .optional()
    .catch(undefined),
  inbox: optionalId,
  team: optionalId,
  priority: z.enum(PRIORITIES).optional().catch(undefined),
  tag: optionalId,
  source: z.enum(SOURCE_TYPES).optional().catch(undefined),
  q: z.string().trim().max(200).optional().catch(undefined),
  sort: z.enum(['last_message', 'created', 'priority']).optional().catch(undefined),
  dir: z.enum(['asc', 'desc']).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).optional().catch(undefined),
});

export type ConversationFilters = z.infer<typeof ConversationFiltersSchema>;

export function readConversationFilters(url: URL): ConversationFilters {
  const raw = Object.fromEntries([...url.searchParams.entries()].filter(([, v]) => v !== ''));
  return ConversationFiltersSchema.parse(raw);
}

export function priorityRank(p: (typeof PRIORITIES)[number]) {
  return PRIORITIES.indexOf(p);
}

export function priorityName(rank: number) {
  return PRIORITIES[rank] ?? 'default';
}
