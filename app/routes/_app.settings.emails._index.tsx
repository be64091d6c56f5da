import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { listEmailInboxes } from '~/models/email/email-inboxes.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

const MODE_NAMES = { forwarding: 'Forwarding', imap: 'IMAP', http: 'HTTP' } as const;

/** Everyone may see the account's email inboxes; manage_emails changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const inboxes = await listEmailInboxes({ accountId: ctx.account.id });
  return { user: publicUser(ctx), inboxes, locked: !can(ctx, 'manage_emails') };
}

export default function EmailInboxes() {
  const { user, inboxes, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Emails"
      subHeader="Email inboxes: mail to your support address becomes conversations, and replies leave from it."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/emails/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Inbox
        </Link>
      }
    >
      {inboxes.length === 0 ? (
        <p className="muted" data-testid="empty">
          No email inboxes yet.
        </p>
      ) : (
        <table className="table" data-testid="email-inboxes">
          <thead>
            <tr>
              <th>Name</th>
              <th>Support address</th>
              <th>Receives by</th>
              <th>Forwarding address</th>
              <th>Verified</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {inboxes.map((i) => (
              <tr key={i.id}>
                <td>
                  <Link to={`/settings/emails/${i.id}`}>{i.name}</Link>
                </td>
                <td>{i.email}</td>
                <td>{MODE_NAMES[i.mode]}</td>
                <td>
                  <code>{i.forwardingAddress}</code>
                </td>
                <td>{i.verifiedAt ? <span className="pill pill-ok">Verified</span> : <span className="pill pill-warn">Not verified</span>}</td>
                <td>{formatDate(i.createdAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Emails', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
