import { and, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { IntegrationError } from './http.server';
import { getOpenConnection, type OpenConnection } from './connections.server';

/**
 * The optional two-way sync of contact fields with HubSpot and Pipedrive (ADR 116). What the two share: the Parley
 * fields that can sync, each provider's properties they may map to, the per-connection settings
 * (`settings.sync = { enabled, fields }`), and the one write of a provider's change into Parley.
 *
 * Conflicts: the last change wins by its time. A provider's change is applied only when it is later than the Parley
 * contact's last change; Parley's change is sent only when the provider's record was not changed after it.
 * Loops: a change written here from a provider carries `origin` in its contact_updated event and is never sent back
 * to that provider; a change that equals what is already there writes nothing (no event, so no echo).
 */
export const SYNC_FIELDS = { firstName: 'First name', lastName: 'Last name', phone: 'Phone', title: 'Job title' } as const;
export type SyncField = keyof typeof SYNC_FIELDS;
export const SYNC_FIELD_KEYS = Object.keys(SYNC_FIELDS) as SyncField[];

export type CrmProvider = 'hubspot' | 'pipedrive';
export const CRM_PROVIDERS: CrmProvider[] = ['hubspot', 'pipedrive'];

/** The provider's properties a Parley field may map to (standard ones: their names are the same in every portal). */
export const CRM_PROPERTIES: Record<CrmProvider, Record<string, string>> = {
  hubspot: { firstname: 'First name (firstname)', lastname: 'Last name (lastname)', phone: 'Phone number (phone)', mobilephone: 'Mobile phone number (mobilephone)', jobtitle: 'Job title (jobtitle)' },
  pipedrive: { first_name: 'First name', last_name: 'Last name', phone: 'Phone (primary)' },
};

export const DEFAULT_SYNC_FIELDS: Record<CrmProvider, Partial<Record<SyncField, string>>> = {
  hubspot: { firstName: 'firstname', lastName: 'lastname', phone: 'phone', title: 'jobtitle' },
  pipedrive: { firstName: 'first_name', lastName: 'last_name', phone: 'phone' },
};

export type SyncSettings = { enabled: boolean; fields: Partial<Record<SyncField, string>> };

/** The connection's sync settings; a connection that never saved them has the sync off and the default mapping. */
export function syncSettings(provider: CrmProvider, settings: Record<string, unknown> | undefined): SyncSettings {
  const s = settings?.sync as { enabled?: unknown; fields?: Record<string, unknown> } | undefined;
  if (!s || typeof s !== 'object') return { enabled: false, fields: { ...DEFAULT_SYNC_FIELDS[provider] } };
  const fields: Partial<Record<SyncField, string>> = {};
  for (const k of SYNC_FIELD_KEYS) {
    const v = s.fields?.[k];
    if (typeof v === 'string' && Object.hasOwn(CRM_PROPERTIES[provider], v)) fields[k] = v;
  }
  return { enabled: s.enabled === true, fields };
}

/** Checks a mapping from the settings form: known properties only, each at most once. Field errors by Parley field. */
export function checkSyncMapping(provider: CrmProvider, input: { enabled: boolean; fields: Partial<Record<SyncField, string | undefined>> }) {
  const errors: Partial<Record<SyncField | '', string[]>> = {};
  const fields: Partial<Record<SyncField, string>> = {};
  const used = new Map<string, SyncField>();
  for (const k of SYNC_FIELD_KEYS) {
    const v = input.fields[k];
    if (!v) continue;
    if (!Object.hasOwn(CRM_PROPERTIES[provider], v)) errors[k] = ['Choose one of the listed properties'];
    else if (used.has(v)) errors[k] = [`${CRM_PROPERTIES[provider][v]} is already mapped to ${SYNC_FIELDS[used.get(v)!]}`];
    else {
      used.set(v, k);
      fields[k] = v;
    }
  }
  if (input.enabled && Object.keys(fields).length === 0 && Object.keys(errors).length === 0) errors[''] = ['Choose at least one field to sync'];
  return { errors, settings: { enabled: input.enabled, fields } satisfies SyncSettings };
}

const c = schema.integrationConnections;

/** Writes `settings.sync` with one jsonb statement (other settings, e.g. hooks, are left as they are). */
export async function writeSyncSettings(opts: { accountId: number; provider: CrmProvider; sync: SyncSettings }) {
  const [row] = await getDb()
    .update(c)
    .set({ settings: sql`jsonb_set(${c.settings}, '{sync}', ${JSON.stringify(opts.sync)}::jsonb)`, updatedAt: new Date() })
    .where(and(eq(c.accountId, opts.accountId), eq(c.provider, opts.provider)))
    .returning({ id: c.id });
  if (!row) throw new IntegrationError('The integration is not connected', 400);
}

/** The account's CRM connections with the sync on (for the engine's `wants`: one indexed read, through the emitter's transaction). */
export async function crmSyncProviders(opts: { accountId: number; db?: DbOrTx }): Promise<CrmProvider[]> {
  const rows = await (opts.db ?? getDb())
    .select({ provider: c.provider })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), inArray(c.provider, CRM_PROVIDERS), sql`(${c.settings}->'sync'->>'enabled')::boolean is true`));
  return rows.map((r) => r.provider as CrmProvider);
}

export type SyncedContact = { id: number; email: string; firstName: string; lastName: string; phone: string | null; title: string | null; updatedAt: Date };

/** The contact's synced fields (null when the account has no such contact, or it has no email to match by). */
export async function syncedContact(opts: { accountId: number; contactId: number }): Promise<SyncedContact | null> {
  const t = schema.contacts;
  const [row] = await getDb()
    .select({ id: t.id, email: t.email, firstName: t.firstName, lastName: t.lastName, phone: t.phone, title: t.title, updatedAt: t.updatedAt })
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.contactId)));
  return row?.email ? { ...row, email: row.email } : null;
}

/** Which mapped fields a contact event asks to send: all of them for a new (or imported) contact, else the changed ones. */
export function fieldsToSend(event: { type: string; payload: Record<string, unknown> }, mapping: Partial<Record<SyncField, string>>): SyncField[] {
  const mapped = SYNC_FIELD_KEYS.filter((k) => mapping[k]);
  if (event.type === 'contact_created' || event.payload.source === 'import') return mapped;
  const changed = Array.isArray(event.payload.changed) ? (event.payload.changed as string[]) : [];
  return mapped.filter((k) => changed.includes(k));
}

/** The Parley value of a field as the provider gets it ('' for none: a cleared field is cleared there too). */
export const parleyValue = (contact: SyncedContact, field: SyncField) => (contact[field] ?? '').trim();

/**
 * What one contact event sends to one provider: the connection (sync on), the contact, the changed mapped
 * properties with their values (`wanted`) and every mapped one (`all`, for a record the provider does not have yet).
 * Null when there is nothing to send.
 */
export async function syncPush(opts: { accountId: number; contactId: number; fields: SyncField[]; provider: CrmProvider }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: opts.provider });
  const sync = conn ? syncSettings(opts.provider, conn.settings) : null;
  if (!conn || !sync?.enabled) return null;
  const fields = opts.fields.filter((k) => sync.fields[k]);
  const contact = await syncedContact(opts);
  if (!contact || fields.length === 0) return null;
  const values = (keys: SyncField[]) => keys.map((k) => [sync.fields[k]!, parleyValue(contact, k)] as const);
  return { conn, contact, wanted: Object.fromEntries(values(fields)), all: values(SYNC_FIELD_KEYS.filter((k) => sync.fields[k])) };
}

/**
 * A provider's change, written into the Parley contact with that email when it is later than the contact's last
 * change and differs from it; `contact_updated` (with `origin`) in the same transaction.
 */
export async function applyProviderChange(opts: { accountId: number; provider: CrmProvider; email: string; values: Partial<Record<SyncField, string>>; at: Date; precisionMs?: number }) {
  const t = schema.contacts;
  return getDb().transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(t)
      .where(and(eq(t.accountId, opts.accountId), sql`lower(${t.email}) = ${opts.email.trim().toLowerCase()}`))
      .limit(1)
      .for('update');
    if (!before) return { applied: false as const, reason: 'no-contact' };
    // A provider that dates its changes to the second (Pipedrive) is compared at that precision; a tie goes to it.
    const step = opts.precisionMs ?? 1;
    if (Math.floor(before.updatedAt.getTime() / step) * step > opts.at.getTime()) return { applied: false as const, reason: 'parley-newer' };
    const set: { firstName?: string; lastName?: string; phone?: string | null; title?: string | null } = {};
    for (const k of SYNC_FIELD_KEYS) {
      const v = opts.values[k];
      if (v === undefined) continue;
      const value = v.trim().slice(0, k === 'phone' ? 40 : 200);
      if (k === 'firstName' && !value) continue; // Parley contacts always have a first name.
      if ((before[k] ?? '') === value) continue;
      if (k === 'firstName' || k === 'lastName') set[k] = value;
      else set[k] = value || null;
    }
    const changed = Object.keys(set) as SyncField[];
    if (changed.length === 0) return { applied: false as const, reason: 'same' };
    await tx
      .update(t)
      .set({ ...set, updatedAt: opts.at })
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'contact_updated',
      subjectType: 'contact',
      subjectId: before.id,
      payload: { contactId: before.id, changed, origin: opts.provider },
      actor: { type: 'system' },
    });
    return { applied: true as const, reason: 'applied', contactId: before.id, changed };
  });
}

/** The Parley fields a provider property feeds, by the connection's mapping. */
export function fieldsOfProperty(conn: Pick<OpenConnection, 'settings'>, provider: CrmProvider, property: string): SyncField[] {
  const { fields } = syncSettings(provider, conn.settings);
  return SYNC_FIELD_KEYS.filter((k) => fields[k] === property);
}
