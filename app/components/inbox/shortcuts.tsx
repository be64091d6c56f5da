import { useNavigate } from '@remix-run/react';
import { useEffect } from 'react';

/** The conversation screen's keyboard shortcuts (ADR 035); the `?` sheet lists exactly these. */
export const CONVERSATION_SHORTCUTS = [
  { key: 'r', label: 'Reply to the customer' },
  { key: 'n', label: 'Write a private note' },
  { key: 'Ctrl Enter', label: 'Send what you wrote (reply or note, as chosen)' },
  { key: 'e', label: 'Resolve the conversation' },
  { key: 'a', label: 'Assign to me' },
  { key: 'j', label: 'Next conversation' },
  { key: 'k', label: 'Previous conversation' },
  { key: '?', label: 'Show these shortcuts' },
  { key: 'Esc', label: 'Leave the message box' },
] as const;

const typingIn = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * Single keys act while focus is not in a field; each does what a visible control does (a button is clicked, a
 * link followed), so the keyboard never reaches anything the page does not offer without it.
 */
export function useConversationShortcuts(opts: { nextId: number | null; previousId: number | null }) {
  const navigate = useNavigate();
  useEffect(() => {
    const click = (selector: string) => (document.querySelector(selector) as HTMLElement | null)?.click();
    const compose = (mode: 'reply' | 'note') => {
      const box = document.querySelector('#reply textarea[name="text"]') as HTMLTextAreaElement | null;
      if (!box) return;
      box.dataset.mode = mode;
      box.placeholder = mode === 'note' ? 'Private note for your team (Ctrl+Enter adds it)' : 'Reply to the customer (Ctrl+Enter sends it)';
      box.focus();
      box.scrollIntoView({ block: 'center' });
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && (e.target as HTMLElement | null)?.matches?.('#reply textarea[name="text"]')) {
        e.preventDefault();
        const mode = (e.target as HTMLTextAreaElement).dataset.mode === 'note' ? 'note' : 'reply';
        click(`#reply button[name="intent"][value="${mode}"]`);
        return;
      }
      if (e.key === 'Escape' && typingIn(e.target)) {
        (e.target as HTMLElement).blur();
        return;
      }
      if (typingIn(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const act: Record<string, () => void> = {
        r: () => compose('reply'),
        n: () => compose('note'),
        e: () => click('[data-shortcut="resolve"]'),
        a: () => click('[data-shortcut="assign-me"]'),
        j: () => opts.nextId && navigate(`/inbox/${opts.nextId}`),
        k: () => opts.previousId && navigate(`/inbox/${opts.previousId}`),
        '?': () => (document.getElementById('shortcuts-help') as HTMLElement & { showPopover?: () => void })?.showPopover?.(),
      };
      const run = act[e.key];
      if (!run) return;
      e.preventDefault();
      run();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [navigate, opts.nextId, opts.previousId]);
}

/** The `?` sheet: a popover opened by its button (no script needed) or by the `?` key. */
export function ShortcutsHelp() {
  return (
    <>
      <button type="button" className="btn btn-link" {...{ popovertarget: 'shortcuts-help' }} data-testid="shortcuts-button">
        Keyboard shortcuts
      </button>
      <div id="shortcuts-help" {...{ popover: 'auto' }} role="dialog" aria-labelledby="shortcuts-title" className="shortcuts-help">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <p className="muted">They work when JavaScript is on and the cursor is not in a field.</p>
        <dl>
          {CONVERSATION_SHORTCUTS.map((s) => (
            <div key={s.key}>
              <dt>
                <kbd>{s.key}</kbd>
              </dt>
              <dd>{s.label}</dd>
            </div>
          ))}
        </dl>
        <button type="button" className="btn" {...{ popovertarget: 'shortcuts-help', popovertargetaction: 'hide' }}>
          Close
        </button>
      </div>
    </>
  );
}
