import type { ResponseFilters } from './forms.server';

/** The responses list's filters from its URL (also the CSV export's): search text and a date range (YYYY-MM-DD, the end day included). */
export function readResponseFilters(url: URL): ResponseFilters & { fromText: string; toText: string } {
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 100);
  const day = (name: string) => {
    const v = url.searchParams.get(name) ?? '';
    const d = /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T00:00:00Z`) : null;
    return d && !Number.isNaN(d.getTime()) ? { text: v, date: d } : { text: '', date: null };
  };
  const from = day('from');
  const to = day('to');
  return { q, from: from.date, to: to.date ? new Date(to.date.getTime() + 86_400_000) : null, fromText: from.text, toText: to.text };
}
