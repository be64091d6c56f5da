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
 * Matches an inbound sender to a contact of the account by email (case-insensitive) or phone, creating it
 * (and a `contact_created` event) when new. Runs in the caller's transaction.
 */
export async function findOrCreateContact(
  tx: Tx,
  opts: { accountId: number; email?: string | null; phone?: string | null; name?: string | null; source: string; causedByEventId?: number },
): Promise<{ contact: Contact; created: boolean }> {
  const email = opts.email?.trim().toLowerCase() || null;
  const phone = opts.phone?.trim() || null;
  if (!email && !phone) throw new Error('A contact needs an email or a phone number');
  const where = email
    ? and(eq(schema.contacts.accountId, opts.accountId), sql`lower(${schema.contacts.email}) = ${email}`)
    : and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.phone, phone!));
  const [existing] = await tx.select().from(schema.contacts).where(where).limit(1);
  if (existing) return { contact: existing, created: false };
  const names = splitName(opts.name, email);
  // A company that binds its domain takes in every new contact at that domain, however the contact arrives.
  const companyId = email ? await companyForEmailDomain(tx, { accountId: opts.accountId, email }) : null;
  const [inserted] = await tx
    .insert(schema.contacts)
    .values({ accountId: opts.accountId, email, phone, ...names, companyId, source: opts.source })
    .onConflictDoNothing()
    .returning();
  if (!inserted) {
    // Another transaction created the same address a moment ago.
    const [again] = await tx.select().from(schema.contacts).where(where).limit(1);
    return { contact: again, created: false };
  }
  await emitEvent(tx, {
    accountId: opts.accountId,
    type: 'contact_created',
    subjectType: 'contact',
    subjectId: inserted.id,
    payload: { email, phone, source: opts.source },
    actor: { type: 'contact', id: inserted.id },
    causedByEventId: opts.causedByEventId,
  });
  return { contact: inserted, created: true };
}

export async function getContact(db: DbOrTx, opts: { accountId: number; id: number }) {
  const [row] = await db
    .select()
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, opts.id)));
  return row;
}
