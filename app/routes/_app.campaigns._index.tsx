import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { CampaignList } from '~/components/campaigns/campaign-list';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { campaignListScreen } from '~/models/campaigns/list-screen.server';
import { campaignListAction } from '~/models/campaigns/intents.server';
import { pageTitle } from '~/utils/format';
import { requireFeature, requirePermission, requireUser } from '~/utils/session.server';

/** All campaigns: getFilters (kind, status, a created-date range), search by name, 50 a page (section 9). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/enabled', await requireUser(request));
  return campaignListScreen(ctx, request);
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'campaigns/enabled', await requirePermission(request, 'manage_campaigns'));
  return campaignListAction({ formData: await request.formData(), accountId: ctx.account.id, actorId: ctx.user.id, list: '/campaigns' });
}

export default function AllCampaigns() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return <CampaignList {...loaderData} error={actionData && 'error' in actionData ? actionData.error : undefined} />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
