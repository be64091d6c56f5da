import crypto from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { getDb, schema } from './client';
import { hashToken } from '../app/models/api/keys.server';
import { newMessageId, newWebhookSecret } from '../app/models/webhooks/signing.server';

/**
 * Demo Developer API and webhooks (issue 20): an order-sync key in use, a revoked reporting key, and a webhook with a
 * few deliveries (one that needed a retry). Written directly (no jobs); the webhook is paused so that the demo never
 * posts to example.com. Deterministic for a given `now` (the keys' tokens are random and unknown to anyone).
 */
export async function seedDemoDeveloper(opts: { accountId: number; ownerId: number; now?: Date }) {
  const now = (opts.now ?? new Date()).getTime();
  const db = getDb();
  const token = () => `prly_${crypto.randomBytes(32).toString('base64url')}`;
  const [sync, reporting] = [token(), token()];
  await db.insert(schema.apiKeys).values([
    {
      accountId: opts.accountId,
      name: 'Shop order sync',
      prefix: sync.slice(0, 12),
      tokenHash: hashToken(sync),
      scopes: ['conversations:write', 'contacts:write', 'tags:read'],
      createdById: opts.ownerId,
      createdAt: new Date(now - 40 * 86400_000),
      lastUsedAt: new Date(now - 7 * 60_000),
    },
    {
      accountId: opts.accountId,
      name: 'Old reporting script',
      prefix: reporting.slice(0, 12),
      tokenHash: hashToken(reporting),
      scopes: ['conversations:read', 'users:read'],
      createdById: opts.ownerId,
      createdAt: new Date(now - 120 * 86400_000),
      lastUsedAt: new Date(now - 35 * 86400_000),
      revokedAt: new Date(now - 30 * 86400_000),
    },
  ]);
  const [endpoint] = await db
    .insert(schema.webhookEndpoints)
    .values({
      accountId: opts.accountId,
      url: 'https://hooks.example.com/parley',
      description: 'CRM sync (paused in the demo)',
      eventTypes: ['conversation_created', 'contact_created', 'contact_updated'],
      active: false,
      secret: newWebhookSecret(),
      createdAt: new Date(now - 20 * 86400_000),
    })
    .returning();
  const contacts = await db
    .select({ id: schema.contacts.id, email: schema.contacts.email })
    .from(schema.contacts)
    .where(eq(schema.contacts.accountId, opts.accountId))
    .orderBy(asc(schema.contacts.id))
    .limit(3);
  for (const [i, c] of contacts.entries()) {
    const at = now - (3 - i) * 3 * 3600_000;
    const payload = { type: 'contact.created', timestamp: new Date(at).toISOString(), data: { object: 'contact', id: String(c.id), contactId: c.id, email: c.email } };
    const body = JSON.stringify(payload);
    const messageId = newMessageId();
    const retried = i === 1;
    const [delivery] = await db
      .insert(schema.webhookDeliveries)
      .values({ accountId: opts.accountId, endpointId: endpoint.id, messageId, eventType: 'contact_created', payload, status: 'delivered', attempts: retried ? 2 : 1, createdAt: new Date(at) })
      .returning();
    const headers = { 'content-type': 'application/json', 'user-agent': 'Parley-Webhooks/1', 'webhook-id': messageId, 'webhook-timestamp': String(Math.floor(at / 1000)) };
    const attempts = retried
      ? [
          { responseStatus: 503, responseBody: 'Service Unavailable', durationMs: 412, createdAt: new Date(at) },
          { responseStatus: 200, responseBody: '{"ok":true}', durationMs: 96, createdAt: new Date(at + 30_000) },
        ]
      : [{ responseStatus: 200, responseBody: '{"ok":true}', durationMs: 88, createdAt: new Date(at) }];
    await db.insert(schema.webhookAttempts).values(attempts.map((a) => ({ ...a, accountId: opts.accountId, deliveryId: delivery.id, requestHeaders: headers, requestBody: body })));
  }
  return { endpointId: endpoint.id };
}
