import {
  assignConversations,
  deleteConversations,
  moveConversations,
  setConversationPriority,
  setConversationStatus,
  tagConversations,
} from './conversations.server';
import type { MassAction } from './forms';

/** The toast each mass action ends with (section 8 where it names one). */
export const MASS_ACTION_TOASTS: Record<MassAction['intent'], string> = {
  assign: 'Conversations Assigned',
  status: 'Status Updated',
  priority: 'Priority Updated',
  tag: 'Tags Updated',
  move: 'Conversation Moved',
  delete: 'Conversation Deleted',
};

/**
 * PUT conversations/massaction: one operation on a selection of the account's conversations. Ids of other
 * accounts are not found by the operations, so they change nothing; a reference of another account (user,
 * inbox, tag) throws InvalidReferenceError.
 */
export async function runMassAction(opts: { accountId: number; actorId: number; action: MassAction }) {
  const base = { accountId: opts.accountId, actorId: opts.actorId, ids: opts.action.ids };
  const a = opts.action;
  switch (a.intent) {
    case 'assign':
      return assignConversations({ ...base, assigneeId: a.assigneeId });
    case 'status':
      return setConversationStatus({ ...base, status: a.status });
    case 'priority':
      return setConversationPriority({ ...base, priority: a.priority });
    case 'tag':
      return tagConversations({ ...base, tagIds: [a.tagId] });
    case 'move':
      return moveConversations({ ...base, inboxId: a.inboxId });
    case 'delete':
      return deleteConversations(base);
  }
}
