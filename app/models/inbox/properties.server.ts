import { getDb } from '../../../db/client';
import type { ConversationStatus, Priority } from '../../../db/schema/inbox';
import {
  assignConversations,
  getConversation,
  InvalidReferenceError,
  moveConversations,
  setConversationPriority,
  setConversationStatus,
  tagConversations,
  untagConversation,
} from './conversations.server';

/**
 * Saves the properties panel in one transaction (ADR 035): only what changed is applied, each through the same
 * operation the single controls use (so each change writes its event and its line in the thread), and a refused
 * reference (another account's user, team, inbox or tag) rolls all of it back.
 */
export async function updateConversationProperties(opts: {
  accountId: number;
  actorId: number;
  id: number;
  values: {
    status?: Exclude<ConversationStatus, 'snoozed'>;
    assigneeId?: number;
    teamId?: number;
    priority: Priority;
    inboxId: number;
    tagIds: number[];
  };
}) {
  const found = await getConversation({ accountId: opts.accountId, id: opts.id });
  if (!found) throw new InvalidReferenceError('Conversation not found');
  const { conversation: c } = found;
  const v = opts.values;
  const who = { accountId: opts.accountId, actorId: opts.actorId };
  const changed: string[] = [];
  await getDb().transaction(async (tx) => {
    if ((v.assigneeId ?? null) !== c.assigneeId || (v.teamId ?? null) !== c.teamId) {
      await assignConversations({ ...who, tx, ids: [c.id], assigneeId: v.assigneeId ?? null, teamId: v.teamId ?? null });
      changed.push('assignee');
    }
    if (v.status && v.status !== c.status) {
      await setConversationStatus({ ...who, tx, ids: [c.id], status: v.status });
      changed.push('status');
    }
    if (v.priority !== found.priority) {
      await setConversationPriority({ ...who, tx, ids: [c.id], priority: v.priority });
      changed.push('priority');
    }
    if (v.inboxId !== c.inboxId) {
      await moveConversations({ ...who, tx, ids: [c.id], inboxId: v.inboxId });
      changed.push('inbox');
    }
    const current = new Set(found.tags.map((t) => t.id));
    const wanted = new Set(v.tagIds);
    const added = [...wanted].filter((t) => !current.has(t));
    const removed = [...current].filter((t) => !wanted.has(t));
    if (added.length) await tagConversations({ ...who, tx, ids: [c.id], tagIds: added });
    for (const tagId of removed) await untagConversation({ ...who, tx, id: c.id, tagId });
    if (added.length || removed.length) changed.push('tags');
  });
  return { changed };
}
