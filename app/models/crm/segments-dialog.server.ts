import type { SegmentConditions } from '../../../db/schema/contacts';
import { listTags } from '../productivity/tags.server';
import { listCompanies, listCompanyOptions } from './companies.server';
import { listAccountUsers, listContacts } from './contacts.server';
import { COUNTRY_SELECT_OPTIONS } from './countries';
import { countConditionMatches, type SegmentKind } from './segments.server';

export const MEMBER_PAGE_SIZE = 10;

/** What the two-step dialog carries between its posts (step-1 values travel as hidden fields in step 2 and back). */
export type SegmentDialogState = {
  name: string;
  type: 'static' | 'dynamic';
  conditions: { assigneeId: string; tag: string; company: string; country: string; isFavourite: string };
  memberIds: number[];
};

export const EMPTY_CONDITIONS = { assigneeId: '', tag: '', company: '', country: '', isFavourite: '' };

/** Reads the dialog's state from a post, leniently (validation happens on Create/Update). */
export function readDialogState(form: FormData): SegmentDialogState {
  const str = (k: string) => String(form.get(k) ?? '').trim();
  return {
    name: str('name'),
    type: str('type') === 'static' ? 'static' : 'dynamic',
    conditions: { assigneeId: str('assigneeId'), tag: str('tag'), company: str('company'), country: str('country'), isFavourite: str('isFavourite') },
    memberIds: [
      ...new Set(
        form
          .getAll('memberIds')
          .map((v) => Number(v))
          .filter((n) => Number.isInteger(n) && n > 0 && n < 2 ** 31),
      ),
    ],
  };
}

export function stateFromSegment(segment: { name: string; isStatic: boolean; conditions: SegmentConditions; memberIds: number[] }): SegmentDialogState {
  const c = segment.conditions;
  return {
    name: segment.name,
    type: segment.isStatic ? 'static' : 'dynamic',
    conditions: {
      assigneeId: c.assigneeId ? String(c.assigneeId) : '',
      tag: c.tag ? String(c.tag) : '',
      company: c.company ? String(c.company) : '',
      country: c.country ?? '',
      isFavourite: c.isFavourite ?? '',
    },
    memberIds: segment.memberIds,
  };
}

function numericOrNull(v: string) {
  return /^\d{1,9}$/.test(v) ? Number(v) : null;
}

export function toConditions(c: SegmentDialogState['conditions']): SegmentConditions {
  return {
    assigneeId: numericOrNull(c.assigneeId),
    tag: numericOrNull(c.tag),
    company: numericOrNull(c.company),
    country: c.country || null,
    isFavourite: c.isFavourite === 'true' || c.isFavourite === 'false' ? c.isFavourite : null,
  };
}

/**
 * Step 2 of the dialog: for a dynamic segment the condition options and the live count of matching rows; for a
 * static one a page of candidates to choose from (searched in SQL).
 */
export async function segmentStepTwo(opts: { accountId: number; kind: SegmentKind; state: SegmentDialogState; search: string; memberPage: number }) {
  const { accountId, kind, state } = opts;
  const tags = (await listTags({ accountId })).map((t) => ({ value: String(t.id), label: t.name }));
  if (state.type === 'dynamic') {
    const [users, companies, count] = await Promise.all([
      kind === 'contact' ? listAccountUsers({ accountId }) : Promise.resolve([]),
      kind === 'contact' ? listCompanyOptions({ accountId }) : Promise.resolve([]),
      countConditionMatches({ accountId, kind, conditions: toConditions(state.conditions) }),
    ]);
    return {
      count,
      options: {
        users: users.map((u) => ({ value: String(u.id), label: `${u.firstName} ${u.lastName}`.trim() || u.email })),
        tags,
        companies: companies.map((c) => ({ value: String(c.id), label: c.name })),
        countries: COUNTRY_SELECT_OPTIONS,
      },
      candidates: null,
    };
  }
  const filters = { q: opts.search, page: opts.memberPage, pageSize: MEMBER_PAGE_SIZE, sort: 'name' as const, dir: 'asc' as const };
  const list =
    kind === 'contact'
      ? await listContacts({ accountId, filters })
      : await listCompanies({ accountId, filters });
  return {
    count: state.memberIds.length,
    options: null,
    candidates: {
      rows: list.rows.map((r) =>
        'firstName' in r ? { id: r.id, label: `${r.firstName} ${r.lastName}`.trim() || r.email || `#${r.id}`, sub: r.email ?? '' } : { id: r.id, label: r.name, sub: r.domain ?? '' },
      ),
      total: list.total,
      page: list.page,
      pageSize: list.pageSize,
    },
  };
}
