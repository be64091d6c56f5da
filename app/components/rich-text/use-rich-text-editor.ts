import { useEffect, useState } from 'react';
import type { UploadResult } from './editor.client';

/**
 * JavaScript only: loads the rich-text editor (its own chunk, ADR 058) over a form's textarea once the page is
 * interactive. Until then, and if it fails to load, the textarea is the editor; it stays the form's field either
 * way. `deps` re-mounts it when what `upload` depends on changes.
 */
export function useRichTextEditor(
  textareaId: string,
  enabled: boolean,
  opts: { label: string; accept: string; upload: (file: File) => Promise<UploadResult> },
  deps: readonly unknown[] = [],
) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    let editor: { destroy: () => void } | undefined;
    let cancelled = false;
    import('~/components/rich-text/editor.client')
      .then(({ mountRichTextEditor }) => {
        const textarea = document.getElementById(textareaId);
        if (cancelled || !(textarea instanceof HTMLTextAreaElement)) return;
        editor = mountRichTextEditor(textarea, opts);
        setReady(true);
      })
      .catch(() => setReady(false));
    return () => {
      cancelled = true;
      editor?.destroy();
      setReady(false);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [textareaId, enabled, ...deps]);
  return ready;
}
