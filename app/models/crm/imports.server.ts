import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type ExcelJS from 'exceljs';
import { fileTypeFromBuffer } from 'file-type';
import { unstable_parseMultipartFormData } from '@remix-run/node';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { IMPORT_FIELD_LABELS, IMPORT_MESSAGES, IMPORT_STATUS, ROW_ERRORS, type ImportField } from './imports.schemas';
import { getDb, schema, type Tx } from '../../../db/client';
import { emitEvent, emitEvents } from '../events/events.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getFileStorage, removeStoredFiles, writeStoredFile } from '../storage/files.server';
import { publishToAccount } from '../../utils/live.server';
import { normalisePhone, phoneDigits } from '../../utils/phone';

export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
const BATCH_SIZE = 500;
const PREVIEW_ROWS = 5;

export type ContactImport = typeof schema.contactImports.$inferSelect;
type FileKind = 'csv' | 'xlsx';

function kindOf(storageKey: string): FileKind {
  return storageKey.endsWith('.xlsx') ? 'xlsx' : 'csv';
}

/** What the upload is, by its bytes: an xlsx (a zip) or CSV text (valid UTF-8 without control characters). */
export async function sniffImportFile(bytes: Buffer): Promise<FileKind | null> {
  const sniffed = await fileTypeFromBuffer(bytes);
  if (sniffed) return sniffed.ext === 'xlsx' || sniffed.ext === 'zip' ? 'xlsx' : null;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    // eslint-disable-next-line no-control-regex
    return /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text) ? null : 'csv';
  } catch {
    return null;
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const v = value as { text?: unknown; result?: unknown; richText?: { text: string }[]; hyperlink?: string };
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
    if (v.text !== undefined) return cellText(v.text);
    if (v.result !== undefined) return cellText(v.result);
    if (v.hyperlink) return v.hyperlink;
    return '';
  }
  return String(value);
}

/**
 * A file's rows one at a time (the header first): csv-parse over the stream, so that memory does not grow with the
 * file, or exceljs's streaming reader over the first worksheet. The source is closed when the reader stops early (a
 * preview) or fails, so a download from the bucket does not keep its connection.
 */
async function* rowsOf(source: Readable, kind: FileKind): AsyncGenerator<string[]> {
  try {
    if (kind === 'csv') {
      const parser = parse({ bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true });
      // pipe() does not pass the source's errors on: a broken download would leave the reader waiting for ever.
      source.on('error', (err) => parser.destroy(err));
      source.pipe(parser);
      for await (const record of parser) yield (record as string[]).map((v) => v ?? '');
      return;
    }
    // exceljs pipes its input on without its errors either: the file (at most IMPORT_MAX_BYTES) is read whole first,
    // so a broken download is an error here rather than a reader that never ends.
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(Buffer.from(chunk as Uint8Array));
    // Loaded on first use: exceljs alone takes over a second to import, which every start would pay.
    const { default: Excel } = await import('exceljs');
    const input = Readable.from([Buffer.concat(chunks)], { objectMode: false });
    const reader = new Excel.stream.xlsx.WorkbookReader(input, { sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', worksheets: 'emit', entries: 'ignore' });
    for await (const worksheet of reader) {
      for await (const row of worksheet as AsyncIterable<ExcelJS.Row>) {
        const values = (row.values as unknown[]) ?? [];
        // exceljs rows are 1-based and sparse.
        const cells: string[] = [];
        for (let i = 1; i < values.length; i++) cells.push(cellText(values[i]).trim());
        if (cells.some((c) => c !== '')) yield cells;
      }
      return; // the first worksheet only
    }
  } finally {
    source.destroy();
  }
}

/**
 * The stored file's rows, from the shared file storage (ADR 141): the upload is written by a web request and read by
 * the import job, which may run on another machine.
 */
export async function* readFileRows(storageKey: string): AsyncGenerator<string[]> {
  const source = await getFileStorage().getStream(storageKey);
  if (!source) throw new Error('The import file is gone from the file storage');
  yield* rowsOf(source, kindOf(storageKey));
}

/** Header names made unique (a failure row is stored keyed by them). */
function uniqueHeaders(header: string[]) {
  const seen = new Map<string, number>();
  return header.map((h, i) => {
    const base = h.trim() || `Column ${i + 1}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} (${n})`;
  });
}

/** A first guess of the mapping from the header names, so that common files need no change. */
export function guessField(header: string): ImportField {
  const h = header.toLowerCase().replace(/[^a-z]/g, '');
  if (['email', 'emailaddress', 'mail'].includes(h)) return 'email';
  if (['firstname', 'first', 'givenname', 'name', 'fname'].includes(h)) return 'firstName';
  if (['lastname', 'last', 'surname', 'familyname', 'lname'].includes(h)) return 'lastName';
  if (['phone', 'phonenumber', 'mobile', 'telephone', 'tel'].includes(h)) return 'phone';
  if (['title', 'jobtitle', 'position'].includes(h)) return 'title';
  if (['website', 'url', 'web', 'site'].includes(h)) return 'website';
  if (['country'].includes(h)) return 'country';
  if (['company', 'companyname', 'organization', 'organisation'].includes(h)) return 'company';
  if (['tags', 'tag', 'labels'].includes(h)) return 'tags';
  return 'ignore';
}

/**
 * Counts the rows of a sniffed CSV or xlsx upload (the header apart) and, when it has some, writes it to the file
 * storage under a key of the account ending in its kind: the contact import and the email survey's recipient lists
 * keep their files this way until mapped. A file that cannot be read or has no rows writes nothing.
 */
export async function storeImportFile(opts: { accountId: number; kind: FileKind; bytes: Buffer }): Promise<{ ok: true; storageKey: string; total: number } | { ok: false; error: string }> {
  let total = -1; // the header is not a row
  try {
    for await (const _row of rowsOf(Readable.from([opts.bytes], { objectMode: false }), opts.kind)) total += 1;
  } catch {
    return { ok: false, error: IMPORT_MESSAGES.unreadable };
  }
  if (total < 1) return { ok: false, error: IMPORT_MESSAGES.empty };
  const { storageKey } = await writeStoredFile(opts.accountId, opts.bytes, { extension: opts.kind });
  return { ok: true, storageKey, total };
}

export async function removeImportFile(storageKey: string) {
  await removeStoredFiles([storageKey]);
}

/** The header (made unique) and the first rows of a stored file, with a first guess of each column's field. */
export async function previewImportFile(storageKey: string) {
  let header: string[] = [];
  const rows: string[][] = [];
  for await (const row of readFileRows(storageKey)) {
    if (header.length === 0) header = uniqueHeaders(row);
    else rows.push(row);
    if (rows.length >= PREVIEW_ROWS) break;
  }
  return { header, rows, guesses: header.map(guessField) };
}

/**
 * Checks and stores an uploaded file in the file storage (ADR 141) and records the import as
 * Pending, waiting for its mapping. Returns a message instead of throwing for files a user can fix.
 */
export async function storeImportUpload(opts: { accountId: number; userId: number; filename: string; bytes: Buffer }): Promise<{ ok: true; importId: number } | { ok: false; error: string }> {
  if (opts.bytes.length === 0) return { ok: false, error: IMPORT_MESSAGES.empty };
  if (opts.bytes.length > IMPORT_MAX_BYTES) return { ok: false, error: IMPORT_MESSAGES.tooLarge };
  const kind = await sniffImportFile(opts.bytes);
  if (!kind) return { ok: false, error: IMPORT_MESSAGES.badType };
  const stored = await storeImportFile({ accountId: opts.accountId, kind, bytes: opts.bytes });
  if (!stored.ok) return stored;
  const { storageKey, total } = stored;
  const [row] = await getDb()
    .insert(schema.contactImports)
    .values({ accountId: opts.accountId, userId: opts.userId, filename: opts.filename.slice(0, 200) || `import.${kind}`, storageKey, totalRows: total })
    .returning({ id: schema.contactImports.id });
  return { ok: true, importId: row.id };
}

export async function getImport(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(schema.contactImports)
    .where(and(eq(schema.contactImports.accountId, opts.accountId), eq(schema.contactImports.id, opts.id)));
  return row;
}

export async function listImports(opts: { accountId: number; limit?: number }) {
  return getDb()
    .select()
    .from(schema.contactImports)
    .where(eq(schema.contactImports.accountId, opts.accountId))
    .orderBy(desc(schema.contactImports.createdAt), desc(schema.contactImports.id))
    .limit(opts.limit ?? 20);
}

/** An import that is still waiting for its mapping (nothing has been queued yet). */
export function awaitingMapping(imp: ContactImport) {
  return imp.status === IMPORT_STATUS.pending && Object.keys(imp.mapping).length === 0;
}

/** The header and the first rows of the file, for the mapping step. */
export async function previewImport(opts: { accountId: number; id: number }) {
  const imp = await getImport(opts);
  if (!imp) return undefined;
  return { import: imp, ...(await previewImportFile(imp.storageKey)) };
}

/**
 * Saves the mapping and queues the import job, once: a second submission of the same mapping step finds the
 * import no longer waiting and changes nothing.
 */
export async function startImport(opts: { accountId: number; id: number; mapping: ImportField[]; duplicateMode: 'skip' | 'update' }) {
  return getDb().transaction(async (tx) => {
    const mapping = Object.fromEntries(opts.mapping.map((f, i) => [String(i), f]));
    const updated = await tx
      .update(schema.contactImports)
      .set({ mapping, duplicateMode: opts.duplicateMode })
      .where(
        and(
          eq(schema.contactImports.accountId, opts.accountId),
          eq(schema.contactImports.id, opts.id),
          eq(schema.contactImports.status, IMPORT_STATUS.pending),
          sql`${schema.contactImports.mapping} = '{}'::jsonb`,
        ),
      )
      .returning({ id: schema.contactImports.id });
    if (updated.length === 0) return false;
    await enqueueInTx(tx, QUEUES.contactImport, { accountId: opts.accountId, importId: opts.id });
    return true;
  });
}

export type ImportRow = {
  email: string | null;
  firstName: string;
  lastName: string;
  phone: string | null;
  title: string | null;
  website: string | null;
  country: string | null;
  company: string | null;
  tags: string[];
};

const EmailCheck = z.email();

/** One file row to a contact, or the reason it cannot be one. */
export function validateImportRow(cells: string[], mapping: Record<string, string>): { row: ImportRow } | { error: string } {
  const get = (field: ImportField) => {
    for (const [index, f] of Object.entries(mapping)) if (f === field) return (cells[Number(index)] ?? '').trim();
    return '';
  };
  const email = get('email').toLowerCase();
  const firstName = get('firstName');
  const lastName = get('lastName');
  if (!email && !firstName && !lastName) return { error: ROW_ERRORS.missingNameAndEmail };
  if (email && (email.length > 254 || !EmailCheck.safeParse(email).success)) return { error: ROW_ERRORS.invalidEmail };
  // Read as the CRM forms read it (ADR 036): one stored form, E.164 for international numbers.
  const typedPhone = get('phone');
  const readPhone = typedPhone ? normalisePhone(typedPhone) : null;
  if (readPhone && (!readPhone.ok || !/^\d{4,16}$/.test(phoneDigits(readPhone.value)))) return { error: ROW_ERRORS.invalidPhone };
  const phone = readPhone?.ok ? readPhone.value : '';
  let website = get('website');
  if (website) {
    const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(website) ? website : `https://${website}`;
    if (website.length < 2 || website.length > 200 || !URL.canParse(candidate) || !new URL(candidate).hostname.includes('.')) return { error: ROW_ERRORS.invalidWebsite };
    website = candidate;
  }
  for (const [field, value] of [
    ['firstName', firstName],
    ['lastName', lastName],
    ['title', get('title')],
    ['country', get('country')],
  ] as const) {
    if (value.length > 200) return { error: ROW_ERRORS.tooLong(IMPORT_FIELD_LABELS[field]) };
  }
  const company = get('company');
  if (company && (company.length < 2 || company.length > 20)) return { error: ROW_ERRORS.companyName };
  const tags = [
    ...new Set(
      get('tags')
        .split(/[;,|]/)
        .map((t) => t.trim())
        .filter((t) => t && t.length <= 50),
    ),
  ];
  return {
    row: {
      email: email || null,
      firstName,
      lastName,
      phone: phone || null,
      title: get('title') || null,
      website: website || null,
      country: get('country') || null,
      company: company || null,
      tags,
    },
  };
}

/**
 * Creates (or, in 'update' mode, updates) many contacts with set-based statements: companies and tags by name,
 * one INSERT ... ON CONFLICT on the account + lower(email) unique index for the contacts with an email, one
 * INSERT for those without, their tags, and a `contact_created` / `contact_updated` event per contact. Rows must
 * be valid (validateImportRow); a repeated email within the batch keeps its first row and counts as skipped.
 */
export async function createContactsBatch(
  tx: Tx,
  opts: { accountId: number; rows: ImportRow[]; duplicateMode: 'skip' | 'update'; importId?: number; actorId?: number | null },
): Promise<{ created: number[]; updated: number[]; skipped: number }> {
  const { accountId } = opts;
  const seen = new Set<string>();
  const rows: ImportRow[] = [];
  let skipped = 0;
  for (const r of opts.rows) {
    if (r.email) {
      if (seen.has(r.email)) {
        skipped += 1;
        continue;
      }
      seen.add(r.email);
    }
    rows.push(r);
  }
  if (rows.length === 0) return { created: [], updated: [], skipped };

  // Companies by name (case-insensitive), created when missing.
  const companyNames = [...new Map(rows.filter((r) => r.company).map((r) => [r.company!.toLowerCase(), r.company!])).values()];
  const companyIds = new Map<string, number>();
  if (companyNames.length > 0) {
    const found = await tx.execute<{ id: number; name: string }>(
      sql`select distinct on (lower(name)) id, name from companies where account_id = ${accountId} and lower(name) = any(${sql.param(companyNames.map((n) => n.toLowerCase()))}::text[]) order by lower(name), id`,
    );
    for (const c of found) companyIds.set(c.name.toLowerCase(), c.id);
    const missing = companyNames.filter((n) => !companyIds.has(n.toLowerCase()));
    if (missing.length > 0) {
      const inserted = await tx.execute<{ id: number; name: string }>(
        sql`insert into companies (account_id, name) select ${accountId}, n from unnest(${sql.param(missing)}::text[]) as n returning id, name`,
      );
      for (const c of inserted) companyIds.set(c.name.toLowerCase(), c.id);
    }
  }

  const columns = {
    email: rows.map((r) => r.email),
    firstName: rows.map((r) => r.firstName),
    lastName: rows.map((r) => r.lastName),
    phone: rows.map((r) => r.phone),
    title: rows.map((r) => r.title),
    website: rows.map((r) => r.website),
    country: rows.map((r) => r.country),
    companyId: rows.map((r) => (r.company ? (companyIds.get(r.company.toLowerCase()) ?? null) : null)),
    ord: rows.map((_, i) => i),
  };
  const source = sql`
    select * from unnest(
      ${sql.param(columns.email)}::text[], ${sql.param(columns.firstName)}::text[], ${sql.param(columns.lastName)}::text[],
      ${sql.param(columns.phone)}::text[], ${sql.param(columns.title)}::text[], ${sql.param(columns.website)}::text[],
      ${sql.param(columns.country)}::text[], ${sql.param(columns.companyId)}::int[], ${sql.param(columns.ord)}::int[]
    ) as r(email, first_name, last_name, phone, title, website, country, company_id, ord)`;
  const onConflict =
    opts.duplicateMode === 'update'
      ? sql`on conflict (account_id, lower(email)) where email is not null do update set
          first_name = coalesce(nullif(excluded.first_name, ''), contacts.first_name),
          last_name = coalesce(nullif(excluded.last_name, ''), contacts.last_name),
          phone = coalesce(excluded.phone, contacts.phone),
          title = coalesce(excluded.title, contacts.title),
          website = coalesce(excluded.website, contacts.website),
          country = coalesce(excluded.country, contacts.country),
          address = case when excluded.country is null then contacts.address else contacts.address || jsonb_build_object('country', excluded.country) end,
          company_id = coalesce(excluded.company_id, contacts.company_id),
          updated_at = now()`
      : sql`on conflict (account_id, lower(email)) where email is not null do nothing`;
  // xmax = 0 on a returned row means it was inserted, not updated.
  const written = await tx.execute<{ id: number; ord: number; inserted: boolean }>(sql`
    with src as (${source}),
    ins as (
      insert into contacts (account_id, email, first_name, last_name, phone, title, website, country, address, company_id, source)
      select ${accountId}, email, first_name, last_name, phone, title, website, country,
             case when country is null then '{}'::jsonb else jsonb_build_object('country', country) end, company_id, 'import'
      from src order by ord
      ${onConflict}
      returning id, lower(email) as email, (xmax = 0) as inserted
    )
    select ins.id, src.ord, ins.inserted from ins join src on ins.email is not null and ins.email = src.email
    union all
    select ins.id, -1, ins.inserted from ins where ins.email is null
  `);
  // Contacts without an email come back without their row number: match them to their rows in order.
  const noEmailOrds = rows.map((r, i) => (r.email ? -1 : i)).filter((i) => i >= 0);
  const noEmailIds = written.filter((w) => w.ord === -1).map((w) => w.id);
  const byOrd = new Map<number, { id: number; inserted: boolean }>();
  for (const w of written) if (w.ord >= 0) byOrd.set(w.ord, { id: w.id, inserted: w.inserted });
  noEmailOrds.forEach((ord, i) => byOrd.set(ord, { id: noEmailIds[i], inserted: true }));
  skipped += rows.length - byOrd.size;

  // Tags by name, created when missing, then linked.
  const tagNames = [...new Map(rows.flatMap((r) => r.tags).map((t) => [t.toLowerCase(), t])).values()];
  if (tagNames.length > 0) {
    await tx.execute(
      sql`insert into tags (account_id, name) select ${accountId}, n from unnest(${sql.param(tagNames)}::text[]) as n on conflict (account_id, lower(name)) do nothing`,
    );
    const tagRows = await tx.execute<{ id: number; name: string }>(
      sql`select id, name from tags where account_id = ${accountId} and lower(name) = any(${sql.param(tagNames.map((t) => t.toLowerCase()))}::text[])`,
    );
    const tagIds = new Map(tagRows.map((t) => [t.name.toLowerCase(), t.id]));
    const pairs: { contactId: number; tagId: number }[] = [];
    rows.forEach((r, ord) => {
      const written = byOrd.get(ord);
      if (!written) return;
      for (const t of r.tags) {
        const tagId = tagIds.get(t.toLowerCase());
        if (tagId) pairs.push({ contactId: written.id, tagId });
      }
    });
    if (pairs.length > 0) {
      await tx.execute(
        sql`insert into contact_tags (contact_id, tag_id, account_id)
            select c, t, ${accountId} from unnest(${sql.param(pairs.map((p) => p.contactId))}::int[], ${sql.param(pairs.map((p) => p.tagId))}::int[]) as x(c, t)
            on conflict do nothing`,
      );
    }
  }

  const created: number[] = [];
  const updated: number[] = [];
  for (const w of byOrd.values()) (w.inserted ? created : updated).push(w.id);
  const actor = opts.actorId ? { type: 'user' as const, id: opts.actorId } : { type: 'system' as const };
  await emitEvents(tx, [
    ...created.map((id) => ({ accountId, type: 'contact_created' as const, subjectType: 'contact', subjectId: id, payload: { source: 'import', importId: opts.importId ?? null }, actor })),
    ...updated.map((id) => ({ accountId, type: 'contact_updated' as const, subjectType: 'contact', subjectId: id, payload: { source: 'import', importId: opts.importId ?? null }, actor })),
  ]);
  return { created, updated, skipped };
}

function progressMessage(imp: Pick<ContactImport, 'id' | 'status' | 'totalRows' | 'processedRows' | 'createdRows' | 'updatedRows' | 'failedRows'>) {
  return {
    type: 'import.progress',
    importId: imp.id,
    status: imp.status,
    total: imp.totalRows,
    processed: imp.processedRows,
    created: imp.createdRows,
    updated: imp.updatedRows,
    failed: imp.failedRows,
  };
}

/**
 * The import job: reads the stored file in batches, writes each batch's contacts, failures and counts in one
 * transaction (published live to the account), and finishes as Ready for Import with one `contacts_imported`
 * event. A retried job resumes after the rows already counted, so nothing is imported twice.
 */
export async function runContactImport(opts: { accountId: number; importId: number }) {
  const imp = await getImport({ accountId: opts.accountId, id: opts.importId });
  if (!imp || imp.status === IMPORT_STATUS.readyForImport || awaitingMapping(imp)) return;
  const db = getDb();
  await db
    .update(schema.contactImports)
    .set({ status: IMPORT_STATUS.underProgress })
    .where(and(eq(schema.contactImports.accountId, opts.accountId), eq(schema.contactImports.id, imp.id)));
  await publishToAccount(opts.accountId, progressMessage({ ...imp, status: IMPORT_STATUS.underProgress }));

  let header: string[] | null = null;
  let rowNumber = 0; // 1 = the first data row
  let batch: { rowNumber: number; cells: string[] }[] = [];
  const alreadyDone = imp.processedRows;

  const flush = async () => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    const valid: ImportRow[] = [];
    const failures: { rowNumber: number; reason: string; row: Record<string, string> }[] = [];
    for (const item of items) {
      const result = validateImportRow(item.cells, imp.mapping);
      if ('row' in result) valid.push(result.row);
      else failures.push({ rowNumber: item.rowNumber, reason: result.error, row: Object.fromEntries(header!.map((h, i) => [h, item.cells[i] ?? ''])) });
    }
    const updatedImport = await db.transaction(async (tx) => {
      const written = await createContactsBatch(tx, { accountId: opts.accountId, rows: valid, duplicateMode: imp.duplicateMode, importId: imp.id, actorId: imp.userId });
      if (failures.length > 0) {
        await tx.insert(schema.contactImportErrors).values(failures.map((f) => ({ importId: imp.id, accountId: opts.accountId, ...f })));
      }
      const [row] = await tx
        .update(schema.contactImports)
        .set({
          processedRows: sql`${schema.contactImports.processedRows} + ${items.length}`,
          createdRows: sql`${schema.contactImports.createdRows} + ${written.created.length}`,
          updatedRows: sql`${schema.contactImports.updatedRows} + ${written.updated.length}`,
          failedRows: sql`${schema.contactImports.failedRows} + ${failures.length}`,
        })
        .where(and(eq(schema.contactImports.accountId, opts.accountId), eq(schema.contactImports.id, imp.id)))
        .returning();
      await publishToAccount(opts.accountId, progressMessage(row), { tx });
      return row;
    });
    return updatedImport;
  };

  for await (const cells of readFileRows(imp.storageKey)) {
    if (!header) {
      header = uniqueHeaders(cells);
      continue;
    }
    rowNumber += 1;
    if (rowNumber <= alreadyDone) continue;
    batch.push({ rowNumber, cells });
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();

  await db.transaction(async (tx) => {
    const [done] = await tx
      .update(schema.contactImports)
      .set({ status: IMPORT_STATUS.readyForImport, finishedAt: new Date() })
      .where(and(eq(schema.contactImports.accountId, opts.accountId), eq(schema.contactImports.id, imp.id), eq(schema.contactImports.status, IMPORT_STATUS.underProgress)))
      .returning();
    if (!done) return;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'contacts_imported',
      subjectType: 'contact_import',
      subjectId: imp.id,
      payload: { total: done.processedRows, created: done.createdRows, updated: done.updatedRows, failed: done.failedRows },
      actor: imp.userId ? { type: 'user', id: imp.userId } : { type: 'system' },
    });
    await publishToAccount(opts.accountId, progressMessage(done), { tx });
  });
}

/** The failed rows of an import (account-scoped), first ones first. */
export async function listImportErrors(opts: { accountId: number; importId: number; limit?: number }) {
  return getDb()
    .select()
    .from(schema.contactImportErrors)
    .where(and(eq(schema.contactImportErrors.accountId, opts.accountId), eq(schema.contactImportErrors.importId, opts.importId)))
    .orderBy(asc(schema.contactImportErrors.rowNumber))
    .limit(opts.limit ?? 50);
}

/** Every failed row of an import as CSV: Row, Reason, then the file's own columns, streamed in pages. */
export function importErrorsCsv(opts: { accountId: number; importId: number; header: string[] }): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let afterRow = 0;
  let headerSent = false;
  return new ReadableStream({
    async pull(controller) {
      const { stringify } = await import('csv-stringify/sync');
      const page = await getDb()
        .select()
        .from(schema.contactImportErrors)
        .where(
          and(
            eq(schema.contactImportErrors.accountId, opts.accountId),
            eq(schema.contactImportErrors.importId, opts.importId),
            sql`${schema.contactImportErrors.rowNumber} > ${afterRow}`,
          ),
        )
        .orderBy(asc(schema.contactImportErrors.rowNumber))
        .limit(1000);
      const records: string[][] = [];
      if (!headerSent) {
        records.push(['Row', 'Reason', ...opts.header]);
        headerSent = true;
      }
      for (const e of page) records.push([String(e.rowNumber), e.reason, ...opts.header.map((h) => e.row[h] ?? '')]);
      if (records.length > 0) controller.enqueue(encoder.encode(stringify(records)));
      if (page.length < 1000) controller.close();
      else afterRow = page[page.length - 1].rowNumber;
    },
  });
}

/** The header of the stored file (for the failures download). */
export async function importHeader(imp: ContactImport) {
  for await (const row of readFileRows(imp.storageKey)) return uniqueHeaders(row);
  return [];
}

/**
 * Reads the upload form's post: the `file` part is kept while it stays within the limit (the rest is read and
 * dropped, so the answer is a clear message rather than a broken connection). Anything else is a plain 400.
 */
export async function readImportUpload(request: Request): Promise<{ ok: true; filename: string; bytes: Buffer } | { ok: false; error: string }> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!contentType.startsWith('multipart/form-data')) return { ok: false, error: IMPORT_MESSAGES.noFile };
  const length = Number(request.headers.get('content-length'));
  if (Number.isFinite(length) && length > IMPORT_MAX_BYTES + 64 * 1024) return { ok: false, error: IMPORT_MESSAGES.tooLarge };
  let file: { filename: string; bytes: Buffer; over: boolean } | null = null;
  try {
    await unstable_parseMultipartFormData(request, async (part) => {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.data) {
        size += chunk.byteLength;
        if (size <= IMPORT_MAX_BYTES) chunks.push(Buffer.from(chunk));
      }
      if (typeof part.filename === 'string' && part.name === 'file' && (part.filename || size > 0)) {
        file = { filename: path.basename(part.filename.replace(/\\/g, '/')), bytes: Buffer.concat(chunks), over: size > IMPORT_MAX_BYTES };
      }
      return undefined;
    });
  } catch {
    return { ok: false, error: IMPORT_MESSAGES.unreadable };
  }
  const got = file as { filename: string; bytes: Buffer; over: boolean } | null;
  if (!got) return { ok: false, error: IMPORT_MESSAGES.noFile };
  if (got.over) return { ok: false, error: IMPORT_MESSAGES.tooLarge };
  return { ok: true, filename: got.filename, bytes: got.bytes };
}
