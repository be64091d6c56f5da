import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
import { listSlaPolicies } from '~/models/automation/sla-policies.server';
import { SLA_UNIT_LABELS } from '~/models/automation/sla-policies-constants';
import { listInboxes } from '~/models/inbox/inboxes.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature } from '~/utils/session.server';

/** Behind the plan's slaManagement; everyone on such a plan may see the policies, manage_sla changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'workflowAutomation/slaManagement');
  const [list, inboxes] = await Promise.all([
    listSlaPolicies({ accountId: ctx.account.id, page: readPage(new URL(request.url)) }),
    listInboxes({ accountId: ctx.account.id }),
  ]);
  const inboxName = new Map(inboxes.map((i) => [i.id, i.name]));
  return {
    user: publicUser(ctx),
    list: {
      ...list,
      rows: list.rows.map((p) => {
        const fallback = p.targets.find((t) => t.priority === 'default') ?? p.targets[0];
        return {
          id: p.id,
          name: p.name,
          inboxes: p.inboxIds.length ? p.inboxIds.map((id) => inboxName.get(id) ?? `#${id}`).join(', ') : 'Every other inbox',
          target: fallback
            ? `${fallback.response.value} ${SLA_UNIT_LABELS[fallback.response.unit].toLowerCase()} / ${fallback.resolve.value} ${SLA_UNIT_LABELS[fallback.resolve.unit].toLowerCase()}`
            : '',
          escalation: p.isEscalate ? p.escalateTo.join(', ') : 'Off',
          status: p.isActive ? 'Active' : 'Inactive',
          createdAt: p.createdAt,
        };
      }),
    },
    locked: !can(ctx, 'manage_sla'),
  };
}

export default function SlaPolicyList() {
  const { user, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsList
      basePath="/settings/sla-policy"
      title="SLA Policy"
      subHeader="Response and resolution targets per priority, counted in the inbox's business hours when it has them."
      createLabel="Create SLA Policy"
      plural="SLA policies"
      testId="sla-policies"
      locked={locked}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'Inboxes', cell: (r) => r.inboxes },
        { header: 'Default target (response / resolve)', cell: (r) => r.target },
        { header: 'Escalation', cell: (r) => r.escalation },
        { header: 'Status', cell: (r) => r.status },
        { header: 'Created', cell: (r) => formatDate(r.createdAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('SLA Policy', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
