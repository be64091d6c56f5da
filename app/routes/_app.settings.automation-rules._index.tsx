import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
import { INBOX_RULE_EVENT_LABELS } from '~/models/automation/automation-rules-constants';
import { listAutomationRules } from '~/models/automation/automation-rules.server';
import { ACTION_LABELS, type ActionType, type InboxRuleEvent } from '~/models/automation/rule-constants';
import { listInboxes } from '~/models/inbox/inboxes.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may see the rules; manage_workflow_rules changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const [list, inboxes] = await Promise.all([
    listAutomationRules({ accountId: ctx.account.id, page: readPage(new URL(request.url)) }),
    listInboxes({ accountId: ctx.account.id }),
  ]);
  const inboxName = new Map(inboxes.map((i) => [i.id, i.name]));
  return {
    user: publicUser(ctx),
    list: {
      ...list,
      rows: list.rows.map((r) => ({
        id: r.id,
        name: r.name,
        when: INBOX_RULE_EVENT_LABELS[r.event as InboxRuleEvent] ?? r.event,
        sources: r.sources.map((id) => inboxName.get(id) ?? `#${id}`).join(', '),
        actions: r.actions.map((a) => ACTION_LABELS[a.type as ActionType] ?? a.type).join(', '),
        status: r.isActive ? 'Active' : 'Inactive',
        createdAt: r.createdAt,
      })),
    },
    locked: !can(ctx, 'manage_workflow_rules'),
  };
}

export default function AutomationRulesList() {
  const { user, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsList
      basePath="/settings/automation-rules"
      title="Automation Rules"
      subHeader={
        <>
          Automation rules act inside the inboxes you choose — on a new conversation, every new message or an update; for account-wide automation on
          contacts, surveys, reviews or SLA breaches, use <Link to="/workflows">Workflows</Link>.
        </>
      }
      createLabel="Create Automation Rule"
      plural="automation rules"
      testId="automation-rules"
      locked={locked}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'When', cell: (r) => r.when },
        { header: 'Sources', cell: (r) => r.sources },
        { header: 'Actions', cell: (r) => r.actions },
        { header: 'Status', cell: (r) => r.status },
        { header: 'Created', cell: (r) => formatDate(r.createdAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Automation Rules', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
