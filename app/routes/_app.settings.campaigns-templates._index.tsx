import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
import { pageCampaignTemplates } from '~/models/campaigns/templates.server';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature, requireUser } from '~/utils/session.server';

/** Everyone with the plan feature reads the templates; manage_campaigns changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/emailCampaigns', await requireUser(request));
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim().slice(0, 100) ?? '';
  const list = await pageCampaignTemplates({ accountId: ctx.account.id, q, page: readPage(url) });
  return { user: publicUser(ctx), q, list, locked: !can(ctx, 'manage_campaigns') };
}

export default function CampaignTemplates() {
  const { user, q, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsList
      basePath="/settings/campaigns-templates"
      title="Campaign Templates"
      subHeader="Reusable email designs for email campaigns, with placeholders such as {{firstName}}."
      createLabel="Create Campaign Template"
      plural="campaign templates"
      testId="campaign-templates"
      locked={locked}
      q={q}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'Subject', cell: (r) => r.subject },
        { header: 'Updated', cell: (r) => formatDate(r.updatedAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Campaign Templates', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
