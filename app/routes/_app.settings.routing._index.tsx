import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
import { listRoutingRules } from '~/models/automation/routing.server';
import { RULE_LABELS } from '~/models/automation/routing-constants';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may see the routing rules; manage_routings changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const list = await listRoutingRules({ accountId: ctx.account.id, page: readPage(new URL(request.url)) });
  return {
    user: publicUser(ctx),
    list: {
      ...list,
      rows: list.rows.map((r) => ({
        id: r.id,
        name: r.name,
        inbox: r.inboxName,
        type: r.channelType,
        rule: RULE_LABELS[r.rule],
        assignLimit: r.rule === 'url' ? '—' : r.assignLimit ?? 'No limit',
        createdAt: r.createdAt,
      })),
    },
    locked: !can(ctx, 'manage_routings'),
  };
}

export default function RoutingList() {
  const { user, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsList
      basePath="/settings/routing"
      title="Routing"
      subHeader="Who gets each new conversation of an inbox: one rule per inbox, and a limit of open conversations per agent."
      createLabel="Create Routing Rule"
      plural="routing rules"
      testId="routing-rules"
      locked={locked}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'Inbox', cell: (r) => r.inbox },
        { header: 'Type', cell: (r) => r.type },
        { header: 'Rule', cell: (r) => r.rule },
        { header: 'Assign limit', cell: (r) => r.assignLimit },
        { header: 'Created', cell: (r) => formatDate(r.createdAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Routing', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
