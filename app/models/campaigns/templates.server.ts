import { and, asc, count, eq, ilike, ne, or, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { plainTextOf } from '../knowledge-base/sanitize.server';
import { renderDesign } from './design';
import { TextDesignSchema } from './schemas';
import { cleanQuery, FieldInputError, likePattern, paging, recordChange } from '../productivity/shared.server';
import { TEMPLATE_NAME_TAKEN_MESSAGE } from './constants';
import { cleanCampaignHtml } from './email-layout.server';

export type CampaignTemplate = typeof schema.campaignTemplates.$inferSelect;

const t = schema.campaignTemplates;

function templateWhere(accountId: number, q?: string | null) {
  const query = cleanQuery(q);
  return and(eq(t.accountId, accountId), query ? or(ilike(t.name, likePattern(query)), ilike(t.subject, likePattern(query))) : undefined);
}

export async function listCampaignTemplates(opts: { accountId: number }, db: DbOrTx = getDb()) {
  return db
    .select({ id: t.id, name: t.name, subject: t.subject })
    .from(t)
    .where(eq(t.accountId, opts.accountId))
    .orderBy(sql`lower(${t.name})`, asc(t.id))
    .limit(500);
}

export async function pageCampaignTemplates(opts: { accountId: number; q?: string | null; page?: number }) {
  const { page, pageSize, offset } = paging(opts);
  const where = templateWhere(opts.accountId, opts.q);
  const db = getDb();
  const rows = await db
    .select({ id: t.id, name: t.name, subject: t.subject, updatedAt: t.updatedAt })
    .from(t)
    .where(where)
    .orderBy(sql`lower(${t.name})`, asc(t.id))
    .limit(pageSize)
    .offset(offset);
  const [{ total }] = await db.select({ total: count() }).from(t).where(where);
  return { rows, total, page, pageSize };
}

export async function getCampaignTemplate(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)));
  return row;
}

async function checkNameFree(tx: Tx, accountId: number, name: string, exceptId?: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('campaign_templates'), ${accountId})`);
  const [clash] = await tx
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.accountId, accountId), sql`lower(${t.name}) = ${name.toLowerCase()}`, exceptId ? ne(t.id, exceptId) : undefined));
  if (clash) throw new FieldInputError(TEMPLATE_NAME_TAKEN_MESSAGE, 'name');
}

type Fields = { name: string; subject: string; bodyHtml?: string; textDesign?: string };

/**
 * The stored form: sanitised html, and the plain text derived from it (section 3: bodyText from the html). The
 * designer's document is kept only while the html is its rendering (ADR 095): html edited by hand drops the design,
 * so the designer never overwrites hand-written html; only the html is ever mailed.
 */
function clean(f: Fields) {
  const bodyHtml = cleanCampaignHtml(f.bodyHtml ?? '');
  return { name: f.name.trim(), subject: f.subject.trim(), bodyHtml, bodyText: plainTextOf(bodyHtml), textDesign: keptDesign(f.textDesign, bodyHtml) };
}

/** The design as stored (normalised JSON) when it is valid and renders to `bodyHtml`, else null. */
export function keptDesign(textDesign: string | undefined | null, bodyHtml: string) {
  if (!textDesign?.trim()) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(textDesign);
  } catch {
    return null;
  }
  const design = TextDesignSchema.safeParse(parsed);
  if (!design.success) return null;
  return cleanCampaignHtml(renderDesign(design.data)) === bodyHtml ? JSON.stringify(design.data) : null;
}

export async function createCampaignTemplate(opts: { accountId: number; actorId: number | null } & Fields) {
  const fields = clean(opts);
  return getDb().transaction(async (tx) => {
    await checkNameFree(tx, opts.accountId, fields.name);
    const [row] = await tx
      .insert(t)
      .values({ accountId: opts.accountId, ...fields })
      .returning();
    await recordChange(tx, { ...opts, type: 'campaign_template_created', subjectType: 'campaign_template', subjectId: row.id, payload: { name: row.name } });
    return row;
  });
}

export async function updateCampaignTemplate(opts: { accountId: number; actorId: number | null; id: number } & Fields) {
  const fields = clean(opts);
  return getDb().transaction(async (tx) => {
    const before = await getCampaignTemplate(opts, tx);
    if (!before) return undefined;
    await checkNameFree(tx, opts.accountId, fields.name, before.id);
    const [row] = await tx
      .update(t)
      .set({ ...fields, updatedAt: new Date() })
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
      .returning();
    await recordChange(tx, { ...opts, type: 'campaign_template_updated', subjectType: 'campaign_template', subjectId: row.id, payload: { name: row.name } });
    return row;
  });
}

export async function deleteCampaignTemplate(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'campaign_template_deleted', subjectType: 'campaign_template', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}
