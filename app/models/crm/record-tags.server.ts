import { and, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

export type RecordTag = { id: number; name: string; color: string };

/** Tags of some contacts or companies of the account, by record id (one query for a whole page). */
export async function tagsOfRecords(kind: 'contact' | 'company', accountId: number, ids: number[]) {
  const out = new Map<number, RecordTag[]>();
  if (!ids.length) return out;
  const link = kind === 'contact' ? schema.contactTags : schema.companyTags;
  const owner = kind === 'contact' ? schema.contactTags.contactId : schema.companyTags.companyId;
  const rows = await getDb()
    .select({ ownerId: owner, id: schema.tags.id, name: schema.tags.name, color: schema.tags.color })
    .from(link)
    .innerJoin(schema.tags, and(eq(schema.tags.id, link.tagId), eq(schema.tags.accountId, accountId)))
    .where(and(eq(link.accountId, accountId), inArray(owner, ids)))
    .orderBy(sql`lower(${schema.tags.name})`);
  for (const r of rows) out.set(r.ownerId, [...(out.get(r.ownerId) ?? []), { id: r.id, name: r.name, color: r.color }]);
  return out;
}
