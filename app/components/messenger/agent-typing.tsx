import { useCallback, useEffect, useRef, useState } from 'react';
import { useLiveEvent } from '~/components/shell/use-live';

/**
 * Typing indicators of a web-chat conversation on the agent's screen, both ways (JavaScript only; without it
 * nothing shows and nothing is lost): "Visitor is typing…" from the widget, and the agent's own typing in the
 * reply box (the form `#reply`) sent to the visitor through POST /widget/agent-typing.
 */
export function WidgetTyping({ conversationId }: { conversationId: number }) {
  const [visitorTyping, setVisitorTyping] = useState(false);
  const clear = useRef<ReturnType<typeof setTimeout>>(undefined);
  useLiveEvent(
    useCallback(
      (m: { type: string; conversationId?: unknown; who?: unknown; typing?: unknown }) => {
        if (m.type !== 'widget.typing' || m.who !== 'visitor' || m.conversationId !== conversationId) return;
        clearTimeout(clear.current);
        setVisitorTyping(Boolean(m.typing));
        if (m.typing) clear.current = setTimeout(() => setVisitorTyping(false), 6000);
      },
      [conversationId],
    ),
  );
  useEffect(() => {
    const form = document.getElementById('reply');
    if (!form) return;
    let sentAt = 0;
    let stop: ReturnType<typeof setTimeout> | undefined;
    const send = (typing: boolean) => {
      const body = new FormData();
      body.set('conversationId', String(conversationId));
      body.set('typing', typing ? 'true' : 'false');
      void fetch('/widget/agent-typing', { method: 'POST', body }).catch(() => {});
    };
    const onInput = () => {
      clearTimeout(stop);
      stop = setTimeout(() => {
        sentAt = 0;
        send(false);
      }, 3000);
      if (Date.now() - sentAt < 2000) return;
      sentAt = Date.now();
      send(true);
    };
    form.addEventListener('input', onInput);
    return () => {
      clearTimeout(stop);
      form.removeEventListener('input', onInput);
    };
  }, [conversationId]);
  return visitorTyping ? (
    <p className="muted" role="status" data-testid="visitor-typing">
      Visitor is typing…
    </p>
  ) : null;
}
