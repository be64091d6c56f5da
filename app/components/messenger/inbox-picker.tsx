import { Form, Link } from '@remix-run/react';

/**
 * The web inbox a Messenger settings page edits: a plain GET form (works without JavaScript), or a link to create
 * the first messenger inbox.
 */
export function MessengerInboxPicker({ inboxes, current }: { inboxes: { id: number; name: string }[]; current: number | null }) {
  if (inboxes.length === 0) {
    return (
      <p className="muted" data-testid="no-messenger-inbox">
        There is no messenger inbox yet. <Link to="/settings/chat-messenger">Create one under Chat Messenger</Link>.
      </p>
    );
  }
  if (inboxes.length === 1) return <p className="muted">Inbox: {inboxes[0].name}</p>;
  return (
    <Form method="get" className="row" aria-label="Choose an inbox">
      <label htmlFor="messenger-inbox">Inbox</label>
      <select id="messenger-inbox" name="inbox" defaultValue={current ?? undefined}>
        {inboxes.map((i) => (
          <option key={i.id} value={i.id}>
            {i.name}
          </option>
        ))}
      </select>
      <button type="submit" className="btn">
        Show
      </button>
    </Form>
  );
}
