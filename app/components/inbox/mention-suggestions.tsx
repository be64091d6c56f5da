import { useEffect, useState, type RefObject } from 'react';

export type Mentionable = { id: number; name: string; handle: string };

/**
 * With JavaScript, typing `@an` in the message box lists matching teammates; picking one writes `@AnaAgent `.
 * Without it, `@name` typed by hand works the same (the server reads mentions from the text, ADR 034).
 */
export function MentionSuggestions({ textarea, users }: { textarea: RefObject<HTMLTextAreaElement>; users: Mentionable[] }) {
  const [query, setQuery] = useState<string | null>(null);
  useEffect(() => {
    const el = textarea.current;
    if (!el) return;
    const read = () => {
      const before = el.value.slice(0, el.selectionStart);
      const m = /(^|\s)@([\p{L}\p{N}._-]{0,30})$/u.exec(before);
      setQuery(m ? m[2].toLowerCase() : null);
    };
    el.addEventListener('input', read);
    el.addEventListener('click', read);
    return () => {
      el.removeEventListener('input', read);
      el.removeEventListener('click', read);
    };
  }, [textarea]);
  if (query === null) return null;
  const matches = users.filter((u) => u.name.toLowerCase().includes(query) || u.handle.toLowerCase().startsWith(query)).slice(0, 6);
  if (matches.length === 0) return null;
  const pick = (u: Mentionable) => {
    const el = textarea.current;
    if (!el) return;
    const start = el.value.slice(0, el.selectionStart).lastIndexOf('@');
    el.setRangeText(`@${u.handle} `, start, el.selectionStart, 'end');
    el.focus();
    el.dispatchEvent(new Event('input', { bubbles: true }));
    setQuery(null);
  };
  return (
    <ul className="mention-suggestions" role="listbox" aria-label="Mention a teammate" data-testid="mention-suggestions">
      {matches.map((u) => (
        <li key={u.id} role="option" aria-selected={false}>
          <button type="button" className="btn btn-link" onMouseDown={(e) => e.preventDefault()} onClick={() => pick(u)}>
            @{u.handle} <span className="muted">{u.name}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
