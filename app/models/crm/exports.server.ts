import { and, eq, sql } from 'drizzle-orm';
import { schema } from '../../../db/client';
import { csvStream } from '../../utils/csv-stream.server';
import { segmentWhere, type Segment } from './segments.server';

export const EXPORT_COLUMNS = ['id', 'firstName', 'lastName', 'email', 'phone', 'title', 'website', 'country', 'company', 'tags', 'createdAt'] as const;
const CURSOR_ROWS = 1000;

type ExportRow = {
  id: number;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  website: string | null;
  country: string | null;
  company: string | null;
  tags: string | null;
  created_at: Date | string;
};

/**
 * The account's contacts (optionally filtered by text and tag) as a CSV stream. Rows come from a server-side
 * cursor a thousand at a time and each page is written only when the reader asks for more (pull), so memory
 * stays flat whatever the number of contacts. Every row is the account's own: the account is in the WHERE clause.
 */
export function exportContactsCsv(opts: {
  accountId: number;
  q?: string | null;
  tagId?: number | null;
  segment?: Pick<Segment, 'id' | 'kind' | 'isStatic' | 'conditions'> | null;
}): ReadableStream<Uint8Array> {
  const c = schema.contacts;
  const q = opts.q?.trim().toLowerCase() || null;
  const pattern = q ? `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null;
  const where = and(
    eq(c.accountId, opts.accountId),
    pattern ? sql`(lower(${c.firstName} || ' ' || ${c.lastName}) like ${pattern} or lower(coalesce(${c.email}, '')) like ${pattern})` : undefined,
    opts.tagId
      ? sql`exists (select 1 from contact_tags ct where ct.contact_id = ${c.id} and ct.account_id = ${opts.accountId} and ct.tag_id = ${opts.tagId})`
      : undefined,
    opts.segment ? (segmentWhere({ accountId: opts.accountId, segment: opts.segment }) ?? sql`true`) : undefined,
  );
  const query = sql`
    select ${c.id} as id, ${c.firstName} as first_name, ${c.lastName} as last_name, ${c.email} as email, ${c.phone} as phone,
           ${c.title} as title, ${c.website} as website, ${c.country} as country, co.name as company,
           (select string_agg(t.name, ';' order by t.name) from contact_tags ct join tags t on t.id = ct.tag_id
             where ct.contact_id = ${c.id} and ct.account_id = ${opts.accountId}) as tags,
           ${c.createdAt} as created_at
    from ${c}
    left join companies co on co.id = ${c.companyId} and co.account_id = ${opts.accountId}
    where ${where}
    order by ${c.id}`;
  return csvStream<ExportRow>({ query, header: EXPORT_COLUMNS, toRecord, pageRows: CURSOR_ROWS });
}

function toRecord(r: ExportRow) {
  return [
    r.id,
    r.first_name,
    r.last_name,
    r.email ?? '',
    r.phone ?? '',
    r.title ?? '',
    r.website ?? '',
    r.country ?? '',
    r.company ?? '',
    r.tags ?? '',
    new Date(r.created_at).toISOString(),
  ];
}
