import { Link } from '@remix-run/react';

/** `hasFiles`: the template has attachments; inserting it then reloads, so the reply box lists them. */
export type ReplyTemplate = { id: number; name: string; text: string; hasFiles?: boolean };

/**
 * Email templates (Settings → Email templates) in the reply box, filled for this conversation's contact: a link
 * that reloads with `?template=<id>` (the box then holds it), or, with JavaScript, inserted at the cursor.
 */
export function TemplateList({ templates, keep, insert }: { templates: ReplyTemplate[]; keep: Record<string, string>; insert: (text: string) => boolean }) {
  return (
    <div data-testid="email-templates">
      {templates.length === 0 ? (
        <p className="muted">
          No email templates yet. <Link to="/settings/email-templates">Manage</Link>
        </p>
      ) : null}
      {templates.map((t) => (
        <Link
          key={t.id}
          to={`?${new URLSearchParams({ ...keep, template: String(t.id) })}`}
          title={t.text}
          preventScrollReset
          onClick={(e) => {
            if (!t.hasFiles && insert(t.text)) e.preventDefault();
          }}
        >
          {t.name}
        </Link>
      ))}
    </div>
  );
}
