import { Form, Link } from '@remix-run/react';

export type MergePreview = { id: number; subject: string; status: string; messageCount: number; preview: string; contact: string }[];

/**
 * The merge's confirmation (ADR 035), rendered by the server after the first "Merge": what will move into this
 * conversation, and the one button that merges. Without JavaScript it is an open dialog in the page.
 */
export function MergeConfirm({ targetId, preview }: { targetId: number; preview: MergePreview }) {
  const messages = preview.reduce((n, p) => n + p.messageCount, 0);
  return (
    <dialog open className="confirm merge-confirm" aria-labelledby="merge-confirm-title" data-testid="merge-confirm">
      <h2 id="merge-confirm-title">
        Merge {preview.length === 1 ? '1 conversation' : `${preview.length} conversations`} into #{targetId}?
      </h2>
      <p>
        {messages === 1 ? '1 message moves' : `${messages} messages move`} into this conversation; the merged {preview.length === 1 ? 'conversation is' : 'conversations are'} closed
        and {preview.length === 1 ? 'its address leads' : 'their addresses lead'} here. This cannot be undone.
      </p>
      <ul>
        {preview.map((p) => (
          <li key={p.id}>
            <strong>
              #{p.id} {p.subject || '(no subject)'}
            </strong>{' '}
            <span className="muted">
              {p.contact ? `${p.contact} · ` : ''}
              {p.status} · {p.messageCount === 1 ? '1 message' : `${p.messageCount} messages`}
            </span>
            {p.preview ? <div className="muted">{p.preview}</div> : null}
          </li>
        ))}
      </ul>
      <Form method="post" className="row">
        <input type="hidden" name="ids" value={preview.map((p) => p.id).join(', ')} />
        <button className="btn btn-danger" name="intent" value="merge-confirm">
          Merge {preview.length === 1 ? 'it' : 'them'}
        </button>
        <Link className="btn" to={`/inbox/${targetId}`}>
          Cancel
        </Link>
      </Form>
    </dialog>
  );
}
