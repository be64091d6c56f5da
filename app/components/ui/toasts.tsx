import { useEffect, useState } from 'react';
import type { Toast } from '~/utils/toast.server';

/** Server-set flash toast, bottom-left; with JavaScript it closes after 2 s, without it stays until the next page. */
export function Toasts({ toast }: { toast: Toast | null }) {
  const [visible, setVisible] = useState<Toast | null>(toast);
  // A reload of the page's data without a toast (a live update) must not cut a shown toast short: only a new
  // toast replaces it, and each one closes 2 s after it appeared.
  useEffect(() => {
    if (toast) setVisible(toast);
  }, [toast]);
  useEffect(() => {
    if (!visible) return;
    const t = setTimeout(() => setVisible(null), 2000);
    return () => clearTimeout(t);
  }, [visible]);
  if (!visible) return null;
  return (
    <div className={`toast toast-${visible.type}`} role="status" aria-live="polite" data-testid="toast">
      {visible.text}
    </div>
  );
}
