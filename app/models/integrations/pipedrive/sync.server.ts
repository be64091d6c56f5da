import crypto from 'node:crypto';
import { integrationsInPlan, PLAN_IGNORED } from '../plan.server';
import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../../db/client';
import { getLogger } from '../../../utils/logger.server';
import { getOpenConnection, getOpenConnectionById, type OpenConnection } from '../connections.server';
import { safeEqual } from '../crypto.server';
import { applyProviderChange, SYNC_FIELD_KEYS, syncPush, syncSettings, writeSyncSettings, type SyncField, type SyncSettings } from '../crm-sync.server';
import { IntegrationError } from '../http.server';
import { hookFor, saveHook } from '../task-hooks.server';
import { createPipedrivePersonV2, createPipedriveWebhook, deletePipedriveWebhook, findPipedrivePerson, getPipedrivePersonV2, updatePipedrivePersonV2, type PdPersonV2 } from './client.server';
import { PIPEDRIVE_SYNC_HOOK, pipedriveCtx } from './pipedrive.server';

const HOOK = PIPEDRIVE_SYNC_HOOK;
const HOOK_USER = 'parley';

export const pipedriveWebhookPath = (connectionId: number) => `/webhooks/integrations/pipedrive/${connectionId}`;

/**
 * Saves the contact sync settings (ADR 116). Turning it on registers a Pipedrive webhook for changed persons with
 * HTTP Basic credentials Parley generates (kept sealed); turning it off deletes that webhook.
 */
export async function savePipedriveSync(opts: { accountId: number; sync: SyncSettings; webhookBase: string }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'pipedrive' });
  if (!conn) throw new IntegrationError('Pipedrive is not connected', 400);
  const hook = hookFor(conn, HOOK);
  if (opts.sync.enabled && !hook) {
    const password = crypto.randomBytes(24).toString('base64url');
    const created = await createPipedriveWebhook(await pipedriveCtx(conn), { url: `${opts.webhookBase}${pipedriveWebhookPath(conn.id)}`, user: HOOK_USER, password });
    await saveHook(conn, { resource: HOOK, id: String(created.id), secret: password });
  }
  await writeSyncSettings({ accountId: opts.accountId, provider: 'pipedrive', sync: opts.sync });
  if (!opts.sync.enabled && hook) await removePipedriveSyncHook(conn);
}

/** Deletes the person webhook at Pipedrive (a failure is logged: the credentials are forgotten here either way). */
export async function removePipedriveSyncHook(conn: OpenConnection) {
  const hook = hookFor(conn, HOOK);
  if (!hook) return;
  try {
    await deletePipedriveWebhook(await pipedriveCtx(conn), hook.id);
  } catch (err) {
    getLogger().warn({ provider: 'pipedrive', accountId: conn.accountId, err: (err as Error).message }, 'pipedrive webhook delete failed');
  }
  const c = schema.integrationConnections;
  await getDb()
    .update(c)
    .set({ settings: sql`${c.settings} #- '{hooks,${sql.raw(HOOK)}}'`, updatedAt: new Date() })
    .where(and(eq(c.accountId, conn.accountId), eq(c.id, conn.id)));
}

const primary = (list: { value: string; primary?: boolean }[] | undefined) => (list?.find((x) => x.primary) ?? list?.[0])?.value ?? '';

/** A person's value of a mapped property. */
function personValue(p: PdPersonV2, property: string) {
  if (property === 'phone') return primary(p.phones);
  return String((p as Record<string, unknown>)[property] ?? '');
}

/** The API v2 body that sets a property to a value. */
function personField(property: string, value: string): Record<string, unknown> {
  if (property === 'phone') return { phones: value ? [{ value, primary: true, label: 'work' }] : [] };
  return { [property]: value };
}

/** Pipedrive's update_time: ISO in API v2, "YYYY-MM-DD HH:MM:SS" (UTC) in v1. */
const pdTime = (t: string | null | undefined) => (t ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t.replace(' ', 'T')}Z`) : NaN);

/**
 * Parley → Pipedrive for one contact event: the mapped fields are written to the person with the same email (created
 * when there is none), unless Pipedrive's record changed after the Parley change (`at`).
 */
export async function pushContactToPipedrive(opts: { accountId: number; contactId: number; fields: SyncField[]; at: Date }) {
  const push = await syncPush({ ...opts, provider: 'pipedrive' });
  if (!push) return { skipped: 'nothing-to-send' };
  const { conn, contact, wanted, all } = push;
  const ctx = await pipedriveCtx(conn);
  const found = await findPipedrivePerson(ctx, contact.email);
  if (!found) {
    // A new person gets every mapped field, not only the changed ones.
    const name = `${contact.firstName} ${contact.lastName}`.trim() || contact.email;
    const body = Object.assign({ name, emails: [{ value: contact.email, primary: true, label: 'work' }] }, ...all.filter(([, v]) => v).map(([p, v]) => personField(p, v)));
    return { created: (await createPipedrivePersonV2(ctx, body)).id };
  }
  const person = await getPipedrivePersonV2(ctx, found.id);
  if (!person) return { skipped: 'gone', id: found.id };
  if (pdTime(person.update_time) > Math.floor(opts.at.getTime() / 1000) * 1000) return { skipped: 'pipedrive-newer', id: found.id };
  const diff = Object.entries(wanted).filter(([p, v]) => personValue(person, p) !== v);
  if (diff.length === 0) return { skipped: 'same', id: found.id };
  await updatePipedrivePersonV2(ctx, found.id, Object.assign({}, ...diff.map(([p, v]) => personField(p, v))));
  return { updated: found.id, properties: diff.map(([p]) => p) };
}

/** The HTTP Basic credentials of a delivery match the ones Parley registered (constant-time). */
function basicMatches(header: string | null, password: string) {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!m) return false;
  return safeEqual(Buffer.from(m[1], 'base64').toString('utf8'), `${HOOK_USER}:${password}`);
}

/**
 * POST /webhooks/integrations/pipedrive/{connectionId}: a webhooks v2 delivery for a changed person, accepted only
 * with the HTTP Basic credentials Parley generated for this connection. The person's mapped fields are applied to the
 * Parley contact with one of the person's emails (last change wins).
 */
export async function handlePipedriveWebhook(opts: { connectionId: number; rawBody: string; headers: Headers }) {
  const conn = await getOpenConnectionById({ id: opts.connectionId, provider: 'pipedrive' }).catch(() => null);
  const hook = conn ? hookFor(conn, HOOK) : null;
  if (!conn || !hook || !basicMatches(opts.headers.get('authorization'), hook.secret)) return { status: 401, text: 'Unauthorized' };
  if (!(await integrationsInPlan(conn.accountId))) return PLAN_IGNORED;
  let body: { meta?: { action?: string; entity?: string; timestamp?: string }; data?: PdPersonV2 | null };
  try {
    body = JSON.parse(opts.rawBody);
  } catch {
    return { status: 400, text: 'Invalid JSON' };
  }
  if (body.meta?.entity !== 'person' || body.meta.action !== 'change' || !body.data) return { status: 200, text: 'ignored' };
  const sync = syncSettings('pipedrive', conn.settings);
  if (!sync.enabled) return { status: 200, text: 'sync is off' };
  const values: Partial<Record<SyncField, string>> = {};
  for (const k of SYNC_FIELD_KEYS) if (sync.fields[k]) values[k] = personValue(body.data, sync.fields[k]!);
  const at = new Date(pdTime(body.meta.timestamp) || Date.now());
  for (const email of (body.data.emails ?? []).map((e) => e.value).filter(Boolean).slice(0, 5)) {
    const out = await applyProviderChange({ accountId: conn.accountId, provider: 'pipedrive', email, values, at, precisionMs: 1000 });
    if (out.reason !== 'no-contact') return { status: 200, text: out.applied ? 'applied' : out.reason };
  }
  return { status: 200, text: 'no-contact' };
}
