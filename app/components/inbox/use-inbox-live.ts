import { useNavigation, useRevalidator } from '@remix-run/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { sendLive, useLiveEvent } from '~/components/shell/use-live';
import type { PresenceUsers } from '~/models/inbox/presence.server';

type LiveMessage = { type: string; conversationId?: unknown; [k: string]: unknown };

/**
 * Reloads the page's data when a live message concerns it. Bursts (a mass action touches 50 conversations)
 * become one reload. While a navigation or a reload is under way (the agent's own post and its redirect) the
 * reload waits for it to finish instead of interrupting it, which would drop that page's flash toast.
 */
export function useRevalidateOn(concerns: (m: LiveMessage) => boolean) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' || revalidator.state !== 'idle';
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const pending = useRef(false);
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;

  useEffect(() => {
    if (!busy && pending.current) {
      pending.current = false;
      revalidate.current();
    }
  }, [busy]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const onLive = useCallback(
    (m: LiveMessage) => {
      if (!concerns(m)) return;
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        if (busyRef.current) pending.current = true;
        else revalidate.current();
      }, 150);
    },
    [concerns],
  );
  useLiveEvent(onLive);
}

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
