import { useEffect, useState } from 'react';

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/**
 * The one copy button (section 8: "Copied", on failure "error occurred"). It needs the clipboard, so it appears only
 * once JavaScript runs; without it the value beside it is plain selectable text (a read-only field or <code>). An
 * address given as a path (`/meet/demo`) is copied as the full address of this site.
 */
export function CopyButton({ text, label = 'Copy', ms = 1500, absolute = false }: { text: string; label?: string; ms?: number; absolute?: boolean }) {
  const hydrated = useHydrated();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), ms);
    return () => clearTimeout(t);
  }, [state, ms]);
  if (!hydrated) return null;
  const copy = async () => {
    try {
      const value = absolute ? new URL(text, window.location.origin).href : text;
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" className="btn" onClick={() => void copy()} data-testid="copy-button">
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'error occurred' : label}</span>
    </button>
  );
}

/** A value to copy: its label, the value as read-only text to select (one line, or several), and the copy button. */
export function CopyField({
  id,
  label,
  value,
  rows,
  copyLabel,
  ms,
  testId,
}: {
  id: string;
  label: string;
  value: string;
  /** Several lines (a snippet): a read-only textarea of this many rows. */
  rows?: number;
  copyLabel?: string;
  ms?: number;
  testId?: string;
}) {
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="row wrap">
        {rows ? (
          <textarea id={id} className="snippet" readOnly rows={rows} value={value} data-testid={testId} />
        ) : (
          <input id={id} className="snippet" readOnly value={value} data-testid={testId} style={{ fontFamily: 'monospace' }} />
        )}
        <CopyButton text={value} label={copyLabel} ms={ms} />
      </div>
    </div>
  );
}
