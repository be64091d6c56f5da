import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { SMS_PROVIDER_LABELS, THREADING_INTERVALS } from '~/models/channels/sms-constants';
import { listSmsInboxes } from '~/models/channels/sms.server';
import { countLabel, formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature } from '~/utils/session.server';

/** The plan must have channels/sms; everyone may see the SMS inboxes, manage_sms changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'channels/sms');
  const inboxes = await listSmsInboxes({ accountId: ctx.account.id });
  return {
    user: publicUser(ctx),
    inboxes: inboxes.map(({ id, name, provider, phoneNumber, threadingInterval, createdAt }) => ({ id, name, provider, phoneNumber, threadingInterval, createdAt })),
    locked: !can(ctx, 'manage_sms'),
  };
}

export default function SmsInboxes() {
  const { user, inboxes, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="SMS"
      subHeader="SMS inboxes: texts to your number become conversations, and replies go back by SMS through Twilio or your own gateway."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/sms/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Inbox
        </Link>
      }
    >
      {inboxes.length === 0 ? (
        <p className="muted" data-testid="empty">
          No SMS inboxes yet.
        </p>
      ) : (
        <table className="table" data-testid="sms-inboxes">
          <thead>
            <tr>
              <th>Name</th>
              <th>Provider</th>
              <th>Phone number</th>
              <th>Threading interval</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {inboxes.map((i) => (
              <tr key={i.id}>
                <td>
                  <Link to={`/settings/sms/${i.id}`}>{i.name}</Link>
                </td>
                <td>{SMS_PROVIDER_LABELS[i.provider]}</td>
                <td>{i.phoneNumber}</td>
                <td>{THREADING_INTERVALS.find((t) => t.value === i.threadingInterval)?.label ?? countLabel(i.threadingInterval, 'day')}</td>
                <td>{formatDate(i.createdAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('SMS', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
