import { and, arrayContains, desc, eq, lt, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getLogger } from '../../utils/logger.server';
import { metrics } from '../../utils/metrics.server';
import { guardedRequest, isRefusedUrl, OutboundRefusedError, REFUSED_DESTINATION_MESSAGE } from '../../utils/outbound-guard.server';
import { emitEvent } from '../events/events.server';
import type { DomainEventType } from '../events/types';
import { FieldInputError } from '../productivity/shared.server';
import {
  dottedType,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_FIRST_RETRY_SECONDS,
  WEBHOOK_LOG_BYTES,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_ROTATION_HOURS,
  WEBHOOK_TIMEOUT_MS,
  type WebhookEventType,
} from './constants';
import { newMessageId, newWebhookSecret, webhookHeaders } from './signing.server';

const w = schema.webhookEndpoints;
const d = schema.webhookDeliveries;
const a = schema.webhookAttempts;

export type WebhookEndpoint = typeof w.$inferSelect;
export type WebhookInput = { url: string; description?: string; eventTypes: WebhookEventType[]; active?: boolean };

/** The endpoint without its secrets: what pages and the API show after creation. */
export function publicEndpoint(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    active: e.active,
    createdAt: e.createdAt,
    rotating: !!e.previousSecret && !!e.previousSecretExpiresAt && new Date(e.previousSecretExpiresAt) > new Date(),
  };
}

/** A URL an account may save: http(s) and, unless the installation allows them, not a private address (checked again at every connection). */
async function checkUrl(url: string) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FieldInputError('Enter a valid URL', 'url');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new FieldInputError('The URL must start with https:// or http://', 'url');
  if (parsed.username || parsed.password) throw new FieldInputError('Put no user name or password in the URL', 'url');
  if (await isRefusedUrl(url)) throw new FieldInputError(REFUSED_DESTINATION_MESSAGE, 'url');
}

function cleanTypes(types: string[]) {
  const valid = [...new Set(types)].filter((t): t is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (valid.length === 0) throw new FieldInputError('Choose at least one event', 'eventTypes');
  return valid;
}

const who = (actorId: number | null) => (actorId ? { type: 'user' as const, id: actorId } : { type: 'system' as const });

/** Creates a subscription; its secret is in the answer (shown once on the page, and on the endpoint's page to admins). */
export async function createWebhook(opts: { accountId: number; actorId: number | null; input: WebhookInput }) {
  await checkUrl(opts.input.url);
  const eventTypes = cleanTypes(opts.input.eventTypes);
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(w)
      .values({ accountId: opts.accountId, url: opts.input.url, description: opts.input.description?.trim() ?? '', eventTypes, active: opts.input.active ?? true, secret: newWebhookSecret() })
      .returning();
    await emitEvent(tx, { accountId: opts.accountId, type: 'webhook_created', subjectType: 'webhook', subjectId: row.id, payload: { url: row.url, eventTypes }, actor: who(opts.actorId) });
    return row;
  });
}

export async function updateWebhook(opts: { accountId: number; actorId: number | null; id: number; input: WebhookInput }) {
  await checkUrl(opts.input.url);
  const eventTypes = cleanTypes(opts.input.eventTypes);
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(w)
      .set({ url: opts.input.url, description: opts.input.description?.trim() ?? '', eventTypes, active: opts.input.active ?? true, updatedAt: new Date() })
      .where(and(eq(w.accountId, opts.accountId), eq(w.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, { accountId: opts.accountId, type: 'webhook_updated', subjectType: 'webhook', subjectId: row.id, payload: { url: row.url, eventTypes, active: row.active }, actor: who(opts.actorId) });
    return row;
  });
}

export async function deleteWebhook(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx.delete(w).where(and(eq(w.accountId, opts.accountId), eq(w.id, opts.id))).returning({ id: w.id, url: w.url });
    if (!row) return false;
    await emitEvent(tx, { accountId: opts.accountId, type: 'webhook_deleted', subjectType: 'webhook', subjectId: row.id, payload: { url: row.url }, actor: who(opts.actorId) });
    return true;
  });
}

/** A new secret; the previous one keeps signing (a second signature) for WEBHOOK_ROTATION_HOURS. */
export async function rotateWebhookSecret(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(w)
      .set({
        previousSecret: sql`${w.secret}`,
        previousSecretExpiresAt: new Date(Date.now() + WEBHOOK_ROTATION_HOURS * 3600_000),
        secret: newWebhookSecret(),
        updatedAt: new Date(),
      })
      .where(and(eq(w.accountId, opts.accountId), eq(w.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, { accountId: opts.accountId, type: 'webhook_secret_rotated', subjectType: 'webhook', subjectId: row.id, payload: {}, actor: who(opts.actorId) });
    return row;
  });
}

export async function getWebhook(opts: { accountId: number; id: number }) {
  const [row] = await getDb().select().from(w).where(and(eq(w.accountId, opts.accountId), eq(w.id, opts.id)));
  return row;
}

export async function listWebhooks(opts: { accountId: number; afterId?: number; limit?: number }) {
  return getDb()
    .select()
    .from(w)
    .where(and(eq(w.accountId, opts.accountId), opts.afterId ? lt(w.id, opts.afterId) : undefined))
    .orderBy(desc(w.id))
    .limit(opts.limit ?? 100);
}

/** The endpoint's deliveries, newest first, with their attempts. */
export async function listDeliveries(opts: { accountId: number; endpointId: number; limit?: number }) {
  const deliveries = await getDb()
    .select()
    .from(d)
    .where(and(eq(d.accountId, opts.accountId), eq(d.endpointId, opts.endpointId)))
    .orderBy(desc(d.id))
    .limit(opts.limit ?? 25);
  if (deliveries.length === 0) return [];
  const attempts = await getDb()
    .select()
    .from(a)
    .where(and(eq(a.accountId, opts.accountId), sql`${a.deliveryId} = any(${sql.raw(`array[${deliveries.map((x) => Number(x.id)).join(',')}]::int[]`)})`))
    .orderBy(desc(a.id));
  return deliveries.map((x) => ({ ...x, attempts: attempts.filter((t) => t.deliveryId === x.id) }));
}

// ---------------------------------------------------------------------------------------------------------
// Delivering

/** Whether the account has an active subscription to the type: the engine's filter (no job for accounts without one). */
export async function hasWebhookFor(opts: { accountId: number; type: string; db?: DbOrTx }) {
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(opts.type)) return false;
  const [row] = await (opts.db ?? getDb())
    .select({ id: w.id })
    .from(w)
    .where(and(eq(w.accountId, opts.accountId), eq(w.active, true), arrayContains(w.eventTypes, [opts.type])))
    .limit(1);
  return !!row;
}

/**
 * One delivery per matching active endpoint, and its job, in one transaction. A redelivered event finds its
 * deliveries already there (unique endpoint + event) and queues nothing twice.
 */
export async function enqueueWebhookDeliveries(event: { id: number; accountId: number; type: string; subjectType: string; subjectId: string; payload: Record<string, unknown>; occurredAt?: Date | string }) {
  return getDb().transaction(async (tx) => {
    const endpoints = await tx
      .select({ id: w.id })
      .from(w)
      .where(and(eq(w.accountId, event.accountId), eq(w.active, true), arrayContains(w.eventTypes, [event.type])));
    if (endpoints.length === 0) return 0;
    const payload = {
      type: dottedType(event.type),
      timestamp: new Date(event.occurredAt ?? Date.now()).toISOString(),
      data: { ...event.payload, object: event.subjectType, id: event.subjectId, eventId: event.id },
    };
    const rows = await tx
      .insert(d)
      .values(endpoints.map((e) => ({ accountId: event.accountId, endpointId: e.id, messageId: newMessageId(), eventType: event.type, eventId: event.id, payload })))
      .onConflictDoNothing()
      .returning({ id: d.id });
    for (const r of rows) await enqueueInTx(tx, QUEUES.webhookDeliver, { accountId: event.accountId, deliveryId: r.id });
    return rows.length;
  });
}

/** Queues one more attempt of a delivery now (the Redeliver button, or POST .../redeliver). */
export async function redeliverWebhook(opts: { accountId: number; deliveryId: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(d)
      .set({ status: 'pending', nextAttemptAt: new Date() })
      .where(and(eq(d.accountId, opts.accountId), eq(d.id, opts.deliveryId)))
      .returning({ id: d.id });
    if (!row) return false;
    await enqueueInTx(tx, QUEUES.webhookDeliver, { accountId: opts.accountId, deliveryId: row.id, manual: true });
    return true;
  });
}

const cut = (s: string) => (Buffer.byteLength(s) > WEBHOOK_LOG_BYTES ? `${Buffer.from(s).subarray(0, WEBHOOK_LOG_BYTES).toString('utf8')}…` : s);

/**
 * One attempt (the engine's webhooks.deliver job): signs, posts through the outbound guard (the address is judged
 * again at connection time), logs request and response, and schedules the next try with exponential backoff.
 */
export async function attemptWebhookDelivery(opts: { accountId: number; deliveryId: number; manual?: boolean }) {
  const db = getDb();
  const [row] = await db
    .select({ delivery: d, endpoint: w })
    .from(d)
    .innerJoin(w, eq(w.id, d.endpointId))
    .where(and(eq(d.accountId, opts.accountId), eq(d.id, opts.deliveryId)));
  if (!row) return { skipped: 'missing' };
  const { delivery, endpoint } = row;
  if (delivery.status === 'delivered' && !opts.manual) return { skipped: 'delivered' };
  const body = JSON.stringify(delivery.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && new Date(endpoint.previousSecretExpiresAt) > new Date()) secrets.push(endpoint.previousSecret);
  const headers = webhookHeaders(secrets, delivery.messageId, timestamp, body);
  const started = Date.now();
  let status: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  try {
    const res = await guardedRequest(endpoint.url, { method: 'POST', headers, body, timeoutMs: WEBHOOK_TIMEOUT_MS, maxBytes: WEBHOOK_LOG_BYTES + 1 });
    status = res.status;
    responseBody = cut(res.text);
  } catch (err) {
    error =
      err instanceof OutboundRefusedError || (err as { cause?: unknown })?.cause instanceof OutboundRefusedError
        ? 'Refused: the address is not a public internet address'
        : (err as Error).message === 'Request timed out'
          ? 'Timed out'
          : 'Connection failed';
    getLogger().info({ accountId: opts.accountId, deliveryId: delivery.id, err: (err as Error).message }, 'webhook attempt failed');
  }
  const ok = status !== null && status >= 200 && status < 300;
  metrics().webhookAttempts.inc({ result: ok ? 'delivered' : 'failed' });
  const attempts = delivery.attempts + (opts.manual ? 0 : 1);
  const dead = !ok && !opts.manual && attempts >= WEBHOOK_MAX_ATTEMPTS;
  const retryAt = !ok && !opts.manual && !dead ? new Date(Date.now() + WEBHOOK_FIRST_RETRY_SECONDS * 1000 * 2 ** (attempts - 1)) : null;
  // The log keeps the headers minus the signature (it is derived from the secret and tells a reader nothing useful).
  const { 'webhook-signature': _sig, ...loggedHeaders } = headers;
  await db.transaction(async (tx: Tx) => {
    await tx.insert(a).values({
      accountId: opts.accountId,
      deliveryId: delivery.id,
      requestHeaders: loggedHeaders,
      requestBody: cut(body),
      responseStatus: status,
      responseBody,
      error,
      durationMs: Date.now() - started,
      trigger: opts.manual ? 'manual' : 'automatic',
    });
    await tx
      .update(d)
      .set({ status: ok ? 'delivered' : dead ? 'dead' : opts.manual ? (delivery.status === 'pending' ? 'failed' : delivery.status) : 'failed', attempts, nextAttemptAt: retryAt })
      .where(and(eq(d.accountId, opts.accountId), eq(d.id, delivery.id)));
    if (retryAt) await enqueueInTx(tx, QUEUES.webhookDeliver, { accountId: opts.accountId, deliveryId: delivery.id }, { startAfter: retryAt });
  });
  return { ok, status, attempts, dead };
}

export type { DomainEventType };
