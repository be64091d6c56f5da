import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { listFacebookInboxes } from '~/models/channels/facebook.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may see the Facebook inboxes; manage_facebook changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const inboxes = await listFacebookInboxes({ accountId: ctx.account.id });
  return { user: publicUser(ctx), inboxes: inboxes.map(({ id, name, pageId, createdAt }) => ({ id, name, pageId, createdAt })), locked: !can(ctx, 'manage_facebook') };
}

export default function FacebookInboxes() {
  const { user, inboxes, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Facebook"
      subHeader="Facebook Messenger inboxes: messages to your page become conversations, and replies go back through Messenger."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/facebook/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Connect Page
        </Link>
      }
    >
      {inboxes.length === 0 ? (
        <p className="muted" data-testid="empty">
          No Facebook pages connected yet.
        </p>
      ) : (
        <table className="table" data-testid="facebook-inboxes">
          <thead>
            <tr>
              <th>Name</th>
              <th>Page ID</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {inboxes.map((i) => (
              <tr key={i.id}>
                <td>
                  <Link to={`/settings/facebook/${i.id}`}>{i.name}</Link>
                </td>
                <td>{i.pageId}</td>
                <td>{formatDate(i.createdAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Facebook', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
