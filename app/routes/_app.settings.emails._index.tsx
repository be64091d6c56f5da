import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { listEmailInboxes } from '~/models/email/email-inboxes.server';
import { isMailOAuthConfigured, MAIL_OAUTH_ENV, MAIL_OAUTH_LABEL, MAIL_OAUTH_PROVIDERS } from '~/models/email/oauth-mail.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

const MODE_NAMES = { forwarding: 'Forwarding', imap: 'IMAP', http: 'HTTP' } as const;

/** Everyone may see the account's email inboxes; manage_emails changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const inboxes = await listEmailInboxes({ accountId: ctx.account.id });
  // A provider the operator has not set up says so, and what to set: never a button that cannot work (ADR 158).
  const connect = MAIL_OAUTH_PROVIDERS.map((p) => ({ provider: p, label: MAIL_OAUTH_LABEL[p], configured: isMailOAuthConfigured(p), env: MAIL_OAUTH_ENV[p] }));
  return { user: publicUser(ctx), inboxes, connect, locked: !can(ctx, 'manage_emails') };
}

export default function EmailInboxes() {
  const { user, inboxes, connect, locked } = useLoaderData<typeof loader>();
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
      <section className="card stack" aria-labelledby="connect-title" data-testid="connect-mailbox">
        <h2 id="connect-title">Connect a Gmail or Microsoft 365 mailbox</h2>
        <p className="muted">Sign in with the mailbox&apos;s provider: Parley reads it over IMAP and sends from it over SMTP, with no password stored.</p>
        {connect.map((c) =>
          c.configured ? (
            <Form key={c.provider} method="post" action={`/settings/emails/connect/${c.provider}`}>
              <button type="submit" className="btn" name="intent" value="connect" disabled={locked} data-testid={`connect-${c.provider}`}>
                {locked ? <DeniedBadge kind="role" /> : null} {`Connect with ${c.label}`}
              </button>
            </Form>
          ) : (
            <p key={c.provider} data-testid={`connect-${c.provider}-unconfigured`}>
              <strong>{`Connect with ${c.label}`}</strong> is not available on this server: the operator must set <code>{c.env}</code>{' '}(see Help Center → Emails).
            </p>
          ),
        )}
      </section>
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
