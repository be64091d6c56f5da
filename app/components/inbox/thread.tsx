import type { z } from 'zod';
import { getFormProps, getTextareaProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form } from '@remix-run/react';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList } from '~/components/ui/forms';
import type { EditMessageSchema } from '~/models/inbox/forms';
import { formatDateTime, type DatePrefs } from '~/utils/format';
import { Paperclip } from 'lucide-react';

export type ThreadMessage = {
  id: number;
  kind: 'incoming' | 'outgoing' | 'note' | 'system';
  text: string;
  /** Already sanitised at ingestion and prepared for display (remote images blanked unless allowed). */
  html: string | null;
  sender: string;
  createdAt: string | Date;
  editedAt: string | Date | null;
  deliveryStatus: string | null;
  deliveryError: string | null;
  /** The road a sent reply took ('email', 'widget', 'sms'...). */
  deliveredVia: string | null;
  /** Notes, and replies still living in the web chat (ADR 033). */
  editable: boolean;
  to: string[];
  cc: string[];
  bcc: string[];
  fromTrustedDomain: boolean;
  mine: boolean;
  /** kind: 'audio' gets a player, 'image' a link like any file (inline images are in the HTML, ADR 156). */
  attachments: { id: number; filename: string; size: number; kind?: 'image' | 'audio' | 'file' }[];
};

const KIND_LABELS = { incoming: 'Customer', outgoing: 'Reply', note: 'Private note', system: '' } as const;

export function formatSize(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One line of the thread: customer messages, replies, private notes and system events each look their own. */
export function ThreadItem({
  message: m,
  prefs,
  canManage,
  canSplit,
  editResult,
}: {
  message: ThreadMessage;
  prefs: DatePrefs;
  canManage: boolean;
  canSplit: boolean;
  editResult?: SubmissionResult<string[]>;
}) {
  if (m.kind === 'system') {
    return (
      <li className="msg msg-system" data-testid={`message-${m.id}`} data-kind="system">
        {m.text} · <time dateTime={new Date(m.createdAt).toISOString()}>{formatDateTime(m.createdAt, prefs)}</time>
      </li>
    );
  }
  return (
    <li className={`msg msg-${m.kind}`} id={`m${m.id}`} data-testid={`message-${m.id}`} data-kind={m.kind}>
      <div className="msg-meta">
        <strong>{m.sender}</strong>
        <span className="pill">{KIND_LABELS[m.kind]}</span>
        <time dateTime={new Date(m.createdAt).toISOString()}>{formatDateTime(m.createdAt, prefs)}</time>
        {m.editedAt ? <span>(edited)</span> : null}
        {m.fromTrustedDomain ? <span className="pill pill-ok">Trusted domain</span> : null}
        {m.kind === 'outgoing' && m.deliveryStatus ? (
          <span
            className={`pill ${m.deliveryStatus === 'failed' ? 'pill-off' : m.deliveryStatus === 'queued' ? 'pill-warn' : 'pill-ok'}`}
            title={m.deliveryError ?? undefined}
          >
            {m.deliveryStatus === 'sent' && m.deliveredVia ? `sent · ${VIA_LABELS[m.deliveredVia] ?? m.deliveredVia}` : m.deliveryStatus}
          </span>
        ) : null}
      </div>
      {m.kind === 'outgoing' && m.deliveryError && (m.deliveryStatus === 'failed' || m.deliveryStatus === 'queued') ? (
        <p className={m.deliveryStatus === 'failed' ? 'msg-delivery error' : 'msg-delivery muted'} data-testid="delivery-error">
          {m.deliveryError}
        </p>
      ) : null}
      {m.to.length || m.cc.length || m.bcc.length ? (
        <div className="msg-meta">
          {m.to.length ? <span>To: {m.to.join(', ')}</span> : null}
          {m.cc.length ? <span>Cc: {m.cc.join(', ')}</span> : null}
          {m.bcc.length ? <span>Bcc: {m.bcc.join(', ')}</span> : null}
        </div>
      ) : null}
      <div className="msg-body">{m.html ? <div className="msg-html" dangerouslySetInnerHTML={{ __html: m.html }} /> : <pre>{m.text}</pre>}</div>
      {m.attachments.length ? (
        <ul className="attachments" aria-label="Attachments">
          {m.attachments.map((a) => (
            <li key={a.id}>
              <Paperclip aria-hidden="true" size={14} /> <a href={`/attachments/${a.id}`}>{a.filename}</a> <span className="muted">({formatSize(a.size)})</span>
              {a.kind === 'audio' ? <audio controls preload="none" src={`/attachments/${a.id}`} aria-label={`Play ${a.filename}`} data-testid="audio-player" /> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {canManage ? (
        <div className="msg-tools">
          {m.mine && m.editable ? <EditMessage message={m} lastResult={editResult} /> : null}
          {canSplit ? (
            <Form method="post">
              <input type="hidden" name="messageId" value={m.id} />
              <button className="btn" name="intent" value="split">
                Split
              </button>
            </Form>
          ) : null}
          <DeleteConfirm
            id={`msg-${m.id}`}
            intent={m.kind === 'note' ? 'delete-note' : 'delete-message'}
            fields={{ messageId: String(m.id) }}
            label={m.kind === 'note' ? 'Delete note' : 'Delete'}
          />
        </div>
      ) : null}
    </li>
  );
}

const VIA_LABELS: Record<string, string> = { email: 'by email', widget: 'in the chat', sms: 'by SMS', facebook: 'on Facebook', twitter: 'on X' };

/** Edit an own reply or note: a disclosure holding the form, open again when the server refused the text. */
function EditMessage({ message, lastResult }: { message: ThreadMessage; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm<z.input<typeof EditMessageSchema>>({
    id: `edit-${message.id}`,
    lastResult,
    defaultValue: { messageId: String(message.id), text: message.text },
  });
  const { key, ...textProps } = getTextareaProps(fields.text, { ariaAttributes: true });
  return (
    <details open={Boolean(lastResult)}>
      <summary className="btn">Edit</summary>
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="messageId" value={message.id} />
        <label htmlFor={fields.text.id} className="muted">
          Edit message
        </label>
        <textarea key={key} {...textProps} rows={4} />
        <ErrorList id={fields.text.errorId} errors={fields.text.errors} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <button className="btn btn-primary" name="intent" value="edit-message">
          Save
        </button>
      </Form>
    </details>
  );
}
