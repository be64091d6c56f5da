import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import type { OpenConnection } from './connections.server';
import type { ProviderId } from './providers';

/**
 * The webhooks Parley has at Asana and ClickUp (ADR 100). Unlike GitHub, where Parley picks the signing secret,
 * these providers hand one out per webhook (Asana in the X-Hook-Secret handshake, ClickUp in the create answer), so
 * each connection keeps a map resource → { id, sealed secret } in its settings. Each entry is written with one
 * jsonb statement, so two agents linking tasks at once do not overwrite each other's entry.
 */
const c = schema.integrationConnections;
type HookEntry = { id?: string; secret?: string; pendingUntil?: number };

const purpose = (provider: ProviderId, resource: string) => `integration:${provider}:hook:${resource}`;

function hooksOf(conn: Pick<OpenConnection, 'settings'>): Record<string, HookEntry> {
  const h = conn.settings?.hooks;
  return h && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, HookEntry>) : {};
}

async function putHook(opts: { connectionId: number; accountId: number; resource: string; entry: HookEntry }) {
  const json = JSON.stringify(opts.entry);
  await getDb()
    .update(c)
    .set({ settings: sql`jsonb_set(${c.settings}, '{hooks}', coalesce(${c.settings}->'hooks', '{}'::jsonb) || jsonb_build_object(${opts.resource}::text, ${json}::jsonb))`, updatedAt: new Date() })
    .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.connectionId)));
}

/** The hook of a resource with its secret opened, or null when Parley has none (or it is still being set up). */
export function hookFor(conn: OpenConnection, resource: string) {
  const e = hooksOf(conn)[resource];
  if (!e?.secret) return null;
  return { id: e.id ?? '', secret: openSecret(e.secret, { accountId: conn.accountId, purpose: purpose(conn.provider as ProviderId, resource) }) };
}

/** Every hook of the connection, secrets opened (ClickUp tells which hook a delivery is for by its id). */
export function hookById(conn: OpenConnection, id: string) {
  for (const [resource, e] of Object.entries(hooksOf(conn))) if (e.id === id && e.secret) return { resource, ...hookFor(conn, resource)! };
  return null;
}

export function saveHook(conn: OpenConnection, opts: { resource: string; id: string; secret: string }) {
  const secret = sealSecret(opts.secret, { accountId: conn.accountId, purpose: purpose(conn.provider as ProviderId, opts.resource) });
  return putHook({ connectionId: conn.id, accountId: conn.accountId, resource: opts.resource, entry: { id: opts.id, secret } });
}

/** Asana: the next minute, a handshake for this resource is expected (and only then accepted). */
export function expectHandshake(conn: OpenConnection, resource: string) {
  return putHook({ connectionId: conn.id, accountId: conn.accountId, resource, entry: { pendingUntil: Date.now() + 60_000 } });
}

/**
 * Asana's handshake: the X-Hook-Secret is kept only when Parley is creating this very webhook right now and has no
 * secret for it yet, so a stranger who posts a handshake to the address cannot plant a secret of their own.
 */
export async function acceptHandshake(conn: OpenConnection, resource: string, secret: string) {
  const e = hooksOf(conn)[resource];
  if (!e || e.secret || !e.pendingUntil || e.pendingUntil < Date.now()) return false;
  if (!/^[A-Za-z0-9]{16,256}$/.test(secret)) return false;
  await saveHook(conn, { resource, id: '', secret });
  return true;
}

/** After Asana answered the create call: the hook's gid next to the secret the handshake brought. */
export async function setHookId(conn: OpenConnection, resource: string, id: string) {
  const [row] = await getDb()
    .select({ settings: c.settings })
    .from(c)
    .where(and(eq(c.accountId, conn.accountId), eq(c.id, conn.id)));
  const e = row ? hooksOf({ settings: row.settings })[resource] : undefined;
  if (!e?.secret) return false;
  await putHook({ connectionId: conn.id, accountId: conn.accountId, resource, entry: { ...e, id } });
  return true;
}

/** Reads the connection's hooks again from the database (a handshake may have written one a moment ago). */
export async function reloadHooks(conn: OpenConnection) {
  const [row] = await getDb()
    .select({ settings: c.settings })
    .from(c)
    .where(and(eq(c.accountId, conn.accountId), eq(c.id, conn.id)));
  if (row) conn.settings = row.settings;
  return conn;
}
