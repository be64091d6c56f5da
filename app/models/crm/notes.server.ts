import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { actorFields, emitEvent, withTx, type Via } from '../events/events.server';

/**
 * Adds a note to a contact or a company of the account; undefined when the target is not its own. The note is a
 * change of the contact (contact_updated, with the note id) and counts as an interaction.
 */
export async function addNote(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    target: { contactId: number } | { companyId: number };
    body: string;
  },
) {
  return withTx(opts.tx, async (tx) => {
    const isContact = 'contactId' in opts.target;
    const now = new Date();
    const [owner] =
      'contactId' in opts.target
        ? await tx
            .update(schema.contacts)
            .set({ lastInteractionAt: now, updatedAt: now })
            .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, opts.target.contactId)))
            .returning({ id: schema.contacts.id })
        : await tx
            .update(schema.companies)
            .set({ updatedAt: now })
            .where(and(eq(schema.companies.accountId, opts.accountId), eq(schema.companies.id, opts.target.companyId)))
            .returning({ id: schema.companies.id });
    if (!owner) return undefined;
    const [note] = await tx
      .insert(schema.crmNotes)
      .values({
        accountId: opts.accountId,
        contactId: isContact ? owner.id : null,
        companyId: isContact ? null : owner.id,
        userId: opts.actorId,
        body: opts.body.trim(),
      })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: isContact ? 'contact_updated' : 'company_updated',
      subjectType: isContact ? 'contact' : 'company',
      subjectId: owner.id,
      payload: isContact ? { contactId: owner.id, noteId: note.id } : { companyId: owner.id, noteId: note.id },
      ...actorFields(opts),
    });
    return note;
  });
}

export async function countNotes(opts: { accountId: number; contactId: number }) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(schema.crmNotes)
    .where(and(eq(schema.crmNotes.accountId, opts.accountId), eq(schema.crmNotes.contactId, opts.contactId)));
  return row.n;
}
