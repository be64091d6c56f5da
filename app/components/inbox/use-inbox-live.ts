import { useCallback, useEffect, useState } from 'react';
import { sendLive, useLiveEvent } from '~/components/shell/use-live';
import type { PresenceUsers } from '~/models/inbox/presence.server';

type LiveMessage = { type: string; conversationId?: unknown; [k: string]: unknown };

/**
 * Presence on a conversation: tells the server this tab views it (again after every reconnect, announced by
 * the server's 'hello') and returns who else does. Without JavaScript there is simply no presence line.
 */
export function usePresence(conversationId: number, selfId: number) {
  const [users, setUsers] = useState<PresenceUsers>([]);
  useEffect(() => {
    setUsers([]);
    sendLive({ type: 'viewing', conversationId });
    return () => {
      sendLive({ type: 'left' });
    };
  }, [conversationId]);
  const onLive = useCallback(
    (m: LiveMessage) => {
      if (m.type === 'hello') sendLive({ type: 'viewing', conversationId });
      else if (m.type === 'presence' && m.conversationId === conversationId && Array.isArray(m.users)) setUsers(m.users as PresenceUsers);
    },
    [conversationId]
  );
  useLiveEvent(onLive);
  return users.filter((u) => u.id !== selfId);
}
