import { useEffect, useState } from 'react';
import type { Toast } from '~/utils/toast.server';

/** Server-set flash toast, bottom-left; with JavaScript it closes after 2 s, without it stays until the next page. */
export function Toasts({ toast }: { toast: Toast | null }) {
  const [visible, setVisible] = useState<Toast | null>(toast);
  useEffect(() => {
    setVisible(toast);
    if (!toast) return;
    const t = setTimeout(() => setVisible(null), 2000);
    return () => clearTimeout(t);
  }, [toast]);
  if (!visible) return null;
  return (
    <div className={`toast toast-${visible.type}`} role="status" aria-live="polite" data-testid="toast">
      {visible.text}
    </div>
  );
}
