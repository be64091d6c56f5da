import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../../db/client';
import { getConfig } from '../../../utils/env.server';
import { getLogger } from '../../../utils/logger.server';
import { freshAccessToken, getOpenConnection, mergeConnectionSettings } from '../connections.server';
import { IntegrationError } from '../http.server';
import { listShopifyWebhooks, registerShopifyWebhook } from './client.server';
import { SHOPIFY_WEBHOOK_TOPICS, shopifyAdapter } from './shopify.server';

/**
 * Existing Shopify connections and the webhooks added since they were made (ADR 118): a connection made before
 * orders/create was registered at connect would never hear of new orders until reconnected. A scheduled job (and
 * one at start) lists each connection's webhooks at Shopify and registers the missing topics, to the address the
 * connection's other webhooks use; what it found is kept in the connection's settings for the settings page.
 */
const PATH = '/webhooks/integrations/shopify';

/** Where Shopify should call: the address saved at connect, else the one the shop already calls, else the configured host. */
function addressFor(saved: unknown, existing: { address: string }[]) {
  if (typeof saved === 'string' && saved.endsWith(PATH)) return saved;
  const known = existing.find((w) => w.address.endsWith(PATH));
  if (known) return known.address;
  const host = getConfig().appHost;
  const local = /^(localhost|127\.|\[::1\]|\d+\.\d+\.\d+\.\d+)/.test(host);
  return `${local ? 'http' : 'https'}://${host}${PATH}`;
}

export type WebhookCheck = { checkedAt: string; registered: string[]; missing: string[]; error: string | null };

/** Checks one account's Shopify connection; registers what is missing. */
export async function ensureShopifyWebhooks(opts: { accountId: number }): Promise<WebhookCheck | null> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'shopify' }).catch(() => null);
  if (!conn) return null;
  const out: WebhookCheck = { checkedAt: new Date().toISOString(), registered: [], missing: [], error: null };
  try {
    const ctx = { shop: conn.externalAccount, token: await freshAccessToken(conn, shopifyAdapter(conn.externalAccount)) };
    const hooks = await listShopifyWebhooks(ctx);
    const address = addressFor(conn.settings.webhookAddress, hooks);
    for (const topic of SHOPIFY_WEBHOOK_TOPICS) {
      if (hooks.some((w) => w.topic === topic && w.address === address)) continue;
      try {
        await registerShopifyWebhook({ ...ctx, topic, address });
        out.registered.push(topic);
      } catch (err) {
        if (!(err instanceof IntegrationError)) throw err;
        out.missing.push(topic);
        out.error = err.message;
      }
    }
    await mergeConnectionSettings({ accountId: opts.accountId, provider: 'shopify', settings: { webhookAddress: address, webhookCheck: out } });
  } catch (err) {
    if (!(err instanceof IntegrationError)) throw err;
    out.error = err.message;
    await mergeConnectionSettings({ accountId: opts.accountId, provider: 'shopify', settings: { webhookCheck: out } });
  }
  if (out.registered.length || out.error)
    getLogger().info({ provider: 'shopify', accountId: opts.accountId, registered: out.registered, missing: out.missing, err: out.error }, 'shopify webhooks checked');
  return out;
}

/** The job: every Shopify connection (or one account's), one after the other; one failing does not stop the others. */
export async function ensureStoreWebhooks(opts: { accountId?: number }) {
  const c = schema.integrationConnections;
  const rows = await getDb()
    .select({ accountId: c.accountId })
    .from(c)
    .where(opts.accountId ? and(eq(c.provider, 'shopify'), eq(c.accountId, opts.accountId)) : eq(c.provider, 'shopify'));
  let registered = 0;
  for (const r of rows) {
    const out = await ensureShopifyWebhooks({ accountId: r.accountId }).catch((err) => {
      getLogger().warn({ provider: 'shopify', accountId: r.accountId, err: (err as Error).message }, 'shopify webhook check failed');
      return null;
    });
    registered += out?.registered.length ?? 0;
  }
  return { connections: rows.length, registered };
}
