import { useBlocker } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';

/**
 * JavaScript-only improvement: once the surrounding form has been edited, leaving the page asks
 * "There are some unsaved changes !" / "Do you still wish to leave?" (No / Yes). Submitting clears it.
 * Without JavaScript it renders nothing and the form works as before.
 */
export function UnsavedChangesGuard() {
  const marker = useRef<HTMLSpanElement>(null);
  const [dirty, setDirty] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);

  useEffect(() => {
    const form = marker.current?.closest('form');
    if (!form) return;
    const onInput = () => setDirty(true);
    const onSubmit = () => setDirty(false);
    const onReset = () => setDirty(false);
    form.addEventListener('input', onInput);
    form.addEventListener('change', onInput);
    form.addEventListener('submit', onSubmit);
    form.addEventListener('reset', onReset);
    return () => {
      form.removeEventListener('input', onInput);
      form.removeEventListener('change', onInput);
      form.removeEventListener('submit', onSubmit);
      form.removeEventListener('reset', onReset);
    };
  }, []);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  useEffect(() => {
    if (blocker.state === 'blocked') dialog.current?.showModal();
    else dialog.current?.close();
  }, [blocker.state]);

  return (
    <>
      <span ref={marker} hidden />
      <dialog ref={dialog} data-testid="unsaved-changes" onCancel={() => blocker.reset?.()}>
        <h2>There are some unsaved changes !</h2>
        <p>Do you still wish to leave?</p>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => blocker.reset?.()}>
            No
          </button>
          <button type="button" className="btn btn-primary" onClick={() => blocker.proceed?.()}>
            Yes
          </button>
        </div>
      </dialog>
    </>
  );
}
