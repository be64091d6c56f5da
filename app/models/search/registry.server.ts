import { companiesSearch } from './providers/companies.server';
import { contactsSearch } from './providers/contacts.server';
import { conversationsSearch } from './providers/conversations.server';
import { teamsSearch, usersSearch } from './providers/settings.server';
import { workflowsSearch } from './providers/workflows.server';
import { campaignsSearch } from './providers/campaigns.server';
import { articlesSearch } from '../knowledge-base/search-provider.server';
import type { SearchHit, SearchProvider } from './provider.server';

export type { SearchHit, SearchProvider } from './provider.server';

export const MIN_SEARCH_LENGTH = 3;
/** Hits per group on the grouped page (the dropdown shows the first 5). */
export const GROUP_PREVIEW = 10;
/** Page size of one group's full results (section 9: lists page by 50). */
export const GROUP_PAGE_SIZE = 50;
/** One group's results stop counting here: 20 pages. */
export const GROUP_COUNT_CAP = 1000;

/**
 * THE registration point of the global search, in display order. An area joins the search by exporting a
 * `SearchProvider` (group name + account-scoped `search` and `count`, see provider.server.ts) from
 * `providers/<area>.server.ts` or from its own `app/models/<area>/` module, and adding it to this list:
 * campaigns (type message, email or sms), articles (docId, plainContent) and workflows (name, description)
 * will add themselves here when their areas exist. Nothing else changes: the dropdown, the grouped page and
 * the per-group pages read this list.
 */
const PROVIDERS: readonly SearchProvider[] = [contactsSearch, conversationsSearch, companiesSearch, usersSearch, teamsSearch, campaignsSearch, workflowsSearch, articlesSearch];

export function searchGroups() {
  return PROVIDERS.map((p) => p.group);
}

function cleanQuery(q: string) {
  return q.trim().slice(0, 200);
}

export type SearchGroupResult = { group: string; hits: SearchHit[]; more: boolean };

/**
 * Every group at once: up to `limit` hits each and whether there are more. Under three characters, nothing.
 * Groups without hits are left out.
 */
export async function globalSearch(opts: { accountId: number; q: string; limit?: number }): Promise<SearchGroupResult[]> {
  const q = cleanQuery(opts.q);
  if (q.length < MIN_SEARCH_LENGTH) return [];
  const limit = opts.limit ?? GROUP_PREVIEW;
  const results = await Promise.all(
    PROVIDERS.map(async (p) => {
      const hits = await p.search({ accountId: opts.accountId, q, limit: limit + 1, offset: 0 });
      return { group: p.group, hits: hits.slice(0, limit), more: hits.length > limit };
    }),
  );
  return results.filter((r) => r.hits.length > 0);
}

/** One group's full results, a page at a time; null for a group that is not registered. */
export async function searchGroup(opts: { accountId: number; q: string; group: string; page: number }) {
  const provider = PROVIDERS.find((p) => p.group === opts.group);
  if (!provider) return null;
  const q = cleanQuery(opts.q);
  if (q.length < MIN_SEARCH_LENGTH) return { group: provider.group, hits: [], total: 0, pageSize: GROUP_PAGE_SIZE };
  const [hits, total] = await Promise.all([
    provider.search({ accountId: opts.accountId, q, limit: GROUP_PAGE_SIZE, offset: (opts.page - 1) * GROUP_PAGE_SIZE }),
    provider.count({ accountId: opts.accountId, q, cap: GROUP_COUNT_CAP }),
  ]);
  return { group: provider.group, hits, total, pageSize: GROUP_PAGE_SIZE };
}
