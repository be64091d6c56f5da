import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { CampaignList } from '~/components/campaigns/campaign-list';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { campaignListScreen } from '~/models/campaigns/list-screen.server';
import { campaignListPath, isListedKind, LIST_TITLES, type ListedKind } from '~/models/campaigns/constants';
import { campaignListAction } from '~/models/campaigns/intents.server';
import type { FeatureKey } from '~/models/plans/catalogue';
import { pageTitle } from '~/utils/format';
import { requireFeature, requirePermission, requireUser } from '~/utils/session.server';

/** Section 2: message needs campaigns/chatMessaging, email emailCampaigns, sms smsCampaigns. */
const FEATURES: Record<ListedKind, FeatureKey> = { message: 'campaigns/chatMessaging', email: 'campaigns/emailCampaigns', sms: 'campaigns/smsCampaigns' };

function readKind(param: string | undefined): ListedKind {
  if (!isListedKind(param)) throw new Response('Not Found', { status: 404 });
  return param;
}

/** One kind's list (campaigns/message, campaigns/email, campaigns/sms): the same list as all campaigns, of that kind. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const kind = readKind(params.kind);
  const ctx = await requireFeature(request, FEATURES[kind], await requireFeature(request, 'campaigns/enabled', await requireUser(request)));
  return campaignListScreen(ctx, request, kind);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const kind = readKind(params.kind);
  const ctx = await requireFeature(request, FEATURES[kind], await requirePermission(request, 'manage_campaigns'));
  return campaignListAction({ formData: await request.formData(), accountId: ctx.account.id, actorId: ctx.user.id, list: campaignListPath(kind) });
}

export const handle = {
  breadcrumb: (loaderData: { fixedKind: ListedKind | null } | undefined) => (loaderData?.fixedKind ? LIST_TITLES[loaderData.fixedKind] : null),
};

export default function CampaignKindList() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return <CampaignList {...loaderData} error={actionData && 'error' in actionData ? actionData.error : undefined} />;
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.fixedKind ? LIST_TITLES[data.fixedKind as ListedKind] : 'Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
