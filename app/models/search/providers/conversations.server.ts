import { searchConversations } from '../../inbox/screens.server';
import type { SearchProvider } from '../provider.server';

/**
 * Conversations by subject and message text: the inbox's own full-text query (its stored `search` tsvector).
 * That query takes a limit only, so pages and the count ask for the rows up to the one needed.
 */
export const conversationsSearch: SearchProvider = {
  group: 'Conversations',
  async search({ accountId, q, limit, offset }) {
    const rows = (await searchConversations({ accountId, q, limit: offset + limit })).slice(offset);
    return rows.map((r) => ({
      id: r.id,
      title: r.subject || `#${r.id}`,
      subtitle: `${r.contactFirstName ?? ''} ${r.contactLastName ?? ''}`.trim() || r.contactEmail || r.preview,
      to: `/inbox/${r.id}`,
    }));
  },
  async count({ accountId, q, cap }) {
    return (await searchConversations({ accountId, q, limit: cap })).length;
  },
};
