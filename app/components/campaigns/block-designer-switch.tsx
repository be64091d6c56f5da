import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { readDesign } from '~/models/campaigns/design';

const BlockDesigner = lazy(() => import('./block-designer'));

/**
 * The `textDesign` field and, with JavaScript, the switch to the block designer (its own chunk, loaded on first use).
 * Without JavaScript the hidden field carries the stored design back unchanged and the html textarea is the editor;
 * the server keeps the design only while the html is still its rendering (ADR 095).
 */
export function useBlockDesigner(textareaId: string, stored: string | null | undefined, enabled: boolean) {
  const [hydrated, setHydrated] = useState(false);
  const [on, setOn] = useState(false);
  const [json, setJson] = useState(stored ?? '');
  useEffect(() => setHydrated(true), []);
  useEffect(() => {
    const area = document.getElementById(textareaId);
    const field = area?.closest('.field') as HTMLElement | null;
    if (field) field.hidden = on;
  }, [on, textareaId]);
  const onDesign = useCallback((j: string) => setJson(j), []);
  const field = <input type="hidden" name="textDesign" value={json} />;
  const control =
    hydrated && enabled ? (
      <div className="stack">
        <div className="row">
          <button type="button" className="btn" aria-pressed={on} onClick={() => setOn((v) => !v)}>
            {on ? 'Edit the HTML instead' : 'Design with blocks'}
          </button>
          {!on && stored ? <span className="muted">This body was made with blocks: editing the HTML by hand drops the blocks.</span> : null}
        </div>
        {on ? (
          <Suspense fallback={<p className="muted">Loading the designer…</p>}>
            <BlockDesigner textareaId={textareaId} initial={readDesign(stored)} onDesign={onDesign} />
          </Suspense>
        ) : null}
      </div>
    ) : null;
  return { on, field, control };
}
