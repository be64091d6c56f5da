import { getConfig } from '../../utils/env.server';
import type { ProviderId } from './providers';

/** Which providers this installation has an OAuth client (or, for BigCommerce, nothing to configure) for. */
export function integrationAvailability(): Record<ProviderId, boolean> {
  const i = getConfig().integrations;
  return { shopify: i.shopify !== null, github: i.github !== null, bigcommerce: true, hubspot: i.hubspot !== null, pipedrive: i.pipedrive !== null, asana: i.asana !== null, clickup: i.clickup !== null };
}
