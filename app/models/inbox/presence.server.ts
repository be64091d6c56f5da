/**
 * Who is looking at which conversation, per account, kept in the memory of the web process that holds the
 * sockets (presence is only a hint: a reload shows the same truth without it). Keys are the connections, so one
 * agent with two tabs is one viewer, and a closed tab stops counting at once.
 */
export type Viewer = { accountId: number; userId: number; name: string };
export type PresenceUsers = { id: number; name: string }[];

export class PresenceBoard<K> {
  private readonly viewing = new Map<K, { viewer: Viewer; conversationId: number }>();

  /** The connection now views this conversation; returns the conversations whose viewers changed. */
  view(key: K, viewer: Viewer, conversationId: number): number[] {
    const before = this.viewing.get(key);
    if (before && before.conversationId === conversationId) return [];
    this.viewing.set(key, { viewer, conversationId });
    return before ? [before.conversationId, conversationId] : [conversationId];
  }

  /** The connection left its conversation (or closed); returns the conversation whose viewers changed. */
  leave(key: K): number[] {
    const before = this.viewing.get(key);
    if (!before) return [];
    this.viewing.delete(key);
    return [before.conversationId];
  }

  accountOf(key: K) {
    return this.viewing.get(key)?.viewer.accountId;
  }

  /** The users of one account viewing one conversation, each once. */
  usersOf(accountId: number, conversationId: number): PresenceUsers {
    const users = new Map<number, string>();
    for (const { viewer, conversationId: c } of this.viewing.values()) {
      if (viewer.accountId === accountId && c === conversationId) users.set(viewer.userId, viewer.name);
    }
    return [...users].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  }
}

/** What a browser may say over the socket about presence; anything else is ignored. */
export function readPresenceMessage(raw: string): { type: 'viewing'; conversationId: number } | { type: 'left' } | null {
  if (raw.length > 200) return null;
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!msg || typeof msg !== 'object') return null;
  const m = msg as { type?: unknown; conversationId?: unknown };
  if (m.type === 'left') return { type: 'left' };
  if (
    m.type === 'viewing' &&
    typeof m.conversationId === 'number' &&
    Number.isInteger(m.conversationId) &&
    m.conversationId > 0 &&
    m.conversationId <= 2_147_483_647
  ) {
    return { type: 'viewing', conversationId: m.conversationId };
  }
  return null;
}
