import { sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

type SegmentRow = { id: number; name: string; isStatic: boolean; kind: 'contact' | 'company' };
type MeetingRow = { id: number; name: string; totalBookings: number };
type TagChoice = { id: number; name: string };

/**
 * The CRM side menu in one statement (ADR 136, as ADR 133 folded the conversation page): the segments of both
 * kinds, by name, the meeting types with their confirmed bookings (what
 * `listMeetingTypes` gives the menu), and the account's tags by name, which every CRM page offers as choices (its
 * filter and tag pickers). A part the plan does not allow is not read.
 */
export async function readCrmMenu(opts: { accountId: number; segments: boolean; meetings: boolean }) {
  const { accountId } = opts;
  const [row] = await getDb().execute<{ segments: SegmentRow[] | null; meetings: MeetingRow[] | null; tags: TagChoice[] | null }>(sql`select
      (select json_agg(json_build_object('id', id, 'name', name) order by lower(name), id)
         from ${schema.tags} where account_id = ${accountId}) as tags,
      case when ${opts.segments} then
        (select json_agg(json_build_object('id', id, 'name', name, 'isStatic', is_static, 'kind', kind) order by lower(name), id)
           from ${schema.segments} where account_id = ${accountId}) end as segments,
      case when ${opts.meetings} then
        (select json_agg(json_build_object('id', m.id, 'name', m.name, 'totalBookings',
                  (select count(*)::int from ${schema.meetingBookings} mb where mb.account_id = m.account_id and mb.meeting_type_id = m.id and mb.status = 'confirmed'))
                  order by m.name, m.id)
           from ${schema.meetingTypes} m where m.account_id = ${accountId}) end as meetings`);
  const segments = row.segments ?? [];
  return {
    segments: { contact: segments.filter((s) => s.kind === 'contact'), company: segments.filter((s) => s.kind === 'company') },
    meetings: row.meetings ?? [],
    tagOptions: row.tags ?? [],
  };
}
