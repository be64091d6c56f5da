import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { listTwitterInboxes } from '~/models/channels/twitter.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may see the X inboxes; manage_twitter changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const inboxes = await listTwitterInboxes({ accountId: ctx.account.id });
  return { user: publicUser(ctx), inboxes: inboxes.map(({ id, name, userId, createdAt }) => ({ id, name, userId, createdAt })), locked: !can(ctx, 'manage_twitter') };
}

export default function TwitterInboxes() {
  const { user, inboxes, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Twitter"
      subHeader="X (Twitter) inboxes: direct messages to your account become conversations, and replies go back as direct messages."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/twitter/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Connect Account
        </Link>
      }
    >
      {inboxes.length === 0 ? (
        <p className="muted" data-testid="empty">
          No X accounts connected yet.
        </p>
      ) : (
        <table className="table" data-testid="twitter-inboxes">
          <thead>
            <tr>
              <th>Name</th>
              <th>Account user ID</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {inboxes.map((i) => (
              <tr key={i.id}>
                <td>
                  <Link to={`/settings/twitter/${i.id}`}>{i.name}</Link>
                </td>
                <td>{i.userId}</td>
                <td>{formatDate(i.createdAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Twitter', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
