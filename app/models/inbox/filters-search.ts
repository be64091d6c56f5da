import type { ConversationFilters } from './filters';

/** Only the non-empty filters go into the URL (section 7: "only non-empty parameters sent"). */
export function filtersToSearch(filters: Partial<Record<keyof ConversationFilters, string | number | undefined>>) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== '' && v !== null) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}
