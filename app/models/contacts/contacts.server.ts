import { and, eq, sql } from 'drizzle-orm';
import { schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { companyForEmailDomain } from '../crm/companies.server';

export type Contact = typeof schema.contacts.$inferSelect;

/** Splits "Ada Lovelace" into first and last name; an address's local part when there is no name. */
export function splitName(name: string | null | undefined, email?: string | null) {
  const clean = (name ?? '').replace(/["']/g, '').trim();
  if (!clean) return { firstName: email ? email.split('@')[0] : '', lastName: '' };
  const [first, ...rest] = clean.split(/\s+/);
  return { firstName: first, lastName: rest.join(' ') };
}

/** The words a conversation is found by for its contact: names, the address, and the address's parts. */
export function contactSearchText(contact: { firstName: string; lastName: string; email: string | null; phone?: string | null }) {
  const email = contact.email ?? '';
  return [contact.firstName, contact.lastName, email, email.replace(/[@.+_-]/g, ' '), contact.phone ?? ''].join(' ');
}

/**
 * Matches an inbound sender to a contact of the account by channel identity (a visitor, a Facebook or X user…),
 * email (case-insensitive) or phone, creating it (and a `contact_created` event) when new. A known identity wins;
 * an identity seen for the first time is linked to the contact found or created. Runs in the caller's transaction.
 */
export async function findOrCreateContact(
  tx: Tx,
  opts: {
    accountId: number;
    email?: string | null;
    phone?: string | null;
    name?: string | null;
    identity?: { channel: string; externalId: string } | null;
    source: string;
    causedByEventId?: number;
  },
): Promise<{ contact: Contact; created: boolean }> {
  const email = opts.email?.trim().toLowerCase() || null;
  const phone = opts.phone?.trim() || null;
  const identity = opts.identity?.externalId ? opts.identity : null;
  if (!email && !phone && !identity) throw new Error('A contact needs an email, a phone number or a channel identity');
  if (identity) {
    const [known] = await tx
      .select({ contact: schema.contacts })
      .from(schema.contactIdentities)
      .innerJoin(schema.contacts, eq(schema.contacts.id, schema.contactIdentities.contactId))
      .where(
        and(
          eq(schema.contactIdentities.accountId, opts.accountId),
          eq(schema.contactIdentities.channel, identity.channel),
          eq(schema.contactIdentities.externalId, identity.externalId),
        ),
      );
    if (known) return { contact: known.contact, created: false };
  }
  const found =
    email || phone
      ? await findOrInsertContact(tx, { ...opts, email, phone })
      : {
          contact: (await insertContact(tx, { ...opts, email, phone }))!,
          created: true,
        };
  if (identity) {
    await tx
      .insert(schema.contactIdentities)
      .values({
        accountId: opts.accountId,
        channel: identity.channel,
        externalId: identity.externalId,
        contactId: found.contact.id,
      })
      .onConflictDoNothing();
  }
  return found;
}

async function findOrInsertContact(
  tx: Tx,
  opts: {
    accountId: number;
    email: string | null;
    phone: string | null;
    name?: string | null;
    source: string;
    causedByEventId?: number;
  },
) {
  const where = opts.email
    ? and(eq(schema.contacts.accountId, opts.accountId), sql`lower(${schema.contacts.email}) = ${opts.email}`)
    : and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.phone, opts.phone!));
  const [existing] = await tx.select().from(schema.contacts).where(where).limit(1);
  if (existing) return { contact: existing, created: false };
  const made = await insertContact(tx, opts);
  if (made) return { contact: made, created: true };
  // Another transaction created the same address a moment ago.
  const [again] = await tx.select().from(schema.contacts).where(where).limit(1);
  return { contact: again, created: false };
}

async function insertContact(
  tx: Tx,
  opts: {
    accountId: number;
    email: string | null;
    phone: string | null;
    name?: string | null;
    source: string;
    causedByEventId?: number;
  },
): Promise<Contact | null> {
  const { email, phone } = opts;
  const names = splitName(opts.name, email);
  // A company that binds its domain takes in every new contact at that domain, however the contact arrives.
  const companyId = email ? await companyForEmailDomain(tx, { accountId: opts.accountId, email }) : null;
  const [inserted] = await tx
    .insert(schema.contacts)
    .values({ accountId: opts.accountId, email, phone, ...names, companyId, source: opts.source })
    .onConflictDoNothing()
    .returning();
  if (!inserted) return null;
  await emitEvent(tx, {
    accountId: opts.accountId,
    type: 'contact_created',
    subjectType: 'contact',
    subjectId: inserted.id,
    payload: { email, phone, source: opts.source },
    actor: { type: 'contact', id: inserted.id },
    causedByEventId: opts.causedByEventId,
  });
  return inserted;
}

export async function getContact(db: DbOrTx, opts: { accountId: number; id: number }) {
  const [row] = await db
    .select()
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, opts.id)));
  return row;
}
