import type { AppContext } from '../../utils/session.server';
import { can, canUseFeature } from '../../utils/session.server';
import { asanaPanelFor } from './asana/asana.server';
import { clickupPanelFor } from './clickup/clickup.server';
import { githubPanelFor } from './github/github.server';
import { shopifyPanelFor, type ShopifyPanel } from './shopify/shopify.server';
import { renderIntegrationPanels } from './panels-markup.server';
import { listConnections } from './connections.server';
import { bigcommercePanelFor, type BigcommercePanel } from './bigcommerce/bigcommerce.server';
import { hubspotPanelFor, type HubspotPanel } from './hubspot/hubspot.server';
import { pipedrivePanelFor, type PipedrivePanel } from './pipedrive/pipedrive.server';

/**
 * What the conversation and contact side panels show of the connected integrations (ADR 078): nothing without
 * the plan's integrations area or view_incoming_data; actions offered only with perform_data_specific_action.
 */
export type IntegrationPanels = {
  canAct: boolean;
  shopify: ShopifyPanel;
  github: Awaited<ReturnType<typeof githubPanelFor>> | null;
  asana?: Awaited<ReturnType<typeof asanaPanelFor>> | null;
  clickup?: Awaited<ReturnType<typeof clickupPanelFor>> | null;
  bigcommerce?: BigcommercePanel;
  hubspot?: HubspotPanel;
  pipedrive?: PipedrivePanel;
} | null;

export async function integrationPanelsFor(ctx: AppContext, opts: { email: string | null; conversationId?: number; refresh?: boolean }): Promise<IntegrationPanels> {
  if (!canUseFeature(ctx, 'integrations/enabled') || !can(ctx, 'view_incoming_data')) return null;
  const accountId = ctx.account.id;
  // Most accounts connect nothing: one read answers for all seven panels then, instead of one read each (ADR 110).
  if ((await listConnections({ accountId })).length === 0) return null;
  const convo = opts.conversationId ? { accountId, conversationId: opts.conversationId, refresh: opts.refresh } : null;
  const [shopify, github, asana, clickup, bigcommerce, hubspot, pipedrive] = await Promise.all([
    shopifyPanelFor({ accountId, email: opts.email }),
    convo ? githubPanelFor(convo) : Promise.resolve(null),
    convo ? asanaPanelFor(convo) : Promise.resolve(null),
    convo ? clickupPanelFor(convo) : Promise.resolve(null),
    bigcommercePanelFor({ accountId, email: opts.email }),
    hubspotPanelFor({ accountId, email: opts.email }),
    pipedrivePanelFor({ accountId, email: opts.email }),
  ]);
  if (
    shopify.state === 'not-connected' &&
    !github?.connected &&
    !asana?.connected &&
    !clickup?.connected &&
    bigcommerce.state === 'not-connected' &&
    hubspot.state === 'not-connected' &&
    pipedrive.state === 'not-connected'
  )
    return null;
  return { canAct: can(ctx, 'perform_data_specific_action'), shopify, github, asana, clickup, bigcommerce, hubspot, pipedrive };
}

/** The panels as server-made HTML for the side column ('' when there is nothing to show). */
export async function integrationPanelsHtml(ctx: AppContext, opts: { email: string | null; conversationId?: number }) {
  return renderIntegrationPanels(await integrationPanelsFor(ctx, opts), opts.conversationId);
}
