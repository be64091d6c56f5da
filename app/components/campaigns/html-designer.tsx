import { useEffect, useState } from 'react';

/**
 * JavaScript only: the knowledge base's rich-text editor (ADR 058, its own chunk) over a campaign body's textarea.
 * The textarea stays the form's field: without JavaScript, or if the chunk fails to load, people write HTML in it.
 * Images go in by their web address (campaign mail links images; it never attaches them).
 */
export function useHtmlDesigner(textareaId: string, enabled: boolean) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    let editor: { destroy: () => void } | undefined;
    let cancelled = false;
    import('~/components/rich-text/editor.client')
      .then(({ mountRichTextEditor }) => {
        const textarea = document.getElementById(textareaId);
        if (cancelled || !(textarea instanceof HTMLTextAreaElement)) return;
        editor = mountRichTextEditor(textarea, {
          label: 'Body',
          accept: 'image/png,image/jpeg',
          upload: async () => ({ error: 'Campaign emails link their images: paste the image address instead' }),
        });
        setReady(true);
      })
      .catch(() => setReady(false));
    return () => {
      cancelled = true;
      editor?.destroy();
      setReady(false);
    };
  }, [textareaId, enabled]);
  return ready;
}
