import { can, canUseFeature, publicUser, type AppContext } from '~/utils/session.server';
import { loadCampaignList } from './campaigns.server';
import type { ListedKind } from './constants';

/**
 * What a campaign list screen shows (all campaigns at /campaigns, or one kind's list at /campaigns/{kind}): the list
 * for the address's filters, whether the user may change campaigns, and which kinds the plan has (the tabs).
 */
export async function campaignListScreen(ctx: AppContext, request: Request, kind?: ListedKind) {
  const list = await loadCampaignList({ accountId: ctx.account.id, searchParams: new URL(request.url).searchParams, kind });
  return {
    ...list,
    locked: !can(ctx, 'manage_campaigns'),
    allowed: {
      message: canUseFeature(ctx, 'campaigns/chatMessaging'),
      email: canUseFeature(ctx, 'campaigns/emailCampaigns'),
      sms: canUseFeature(ctx, 'campaigns/smsCampaigns'),
      push: canUseFeature(ctx, 'campaigns/webPush'),
    },
    user: publicUser(ctx),
  };
}
