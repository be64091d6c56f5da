import { Link, useLocation } from '@remix-run/react';

/** A sortable column: choosing the same column again toggles to descending. */
export function SortHeader({ column, label }: { column: string; label: string }) {
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const active = params.get('sort') === column;
  const dir = active && params.get('dir') !== 'desc' ? 'desc' : 'asc';
  params.set('sort', column);
  params.set('dir', dir);
  params.delete('page');
  return (
    <th aria-sort={active ? (params.get('dir') === 'desc' ? 'ascending' : 'descending') : undefined}>
      <Link to={`${location.pathname}?${params.toString()}`}>
        {label} {active ? (dir === 'desc' ? '▲' : '▼') : ''}
      </Link>
    </th>
  );
}

/** Parses `sort` and `dir` against the columns a list allows. */
export function readSort<T extends string>(url: URL, allowed: readonly T[], fallback: T) {
  const sort = url.searchParams.get('sort') as T | null;
  return { sort: sort && allowed.includes(sort) ? sort : fallback, dir: url.searchParams.get('dir') === 'desc' ? ('desc' as const) : ('asc' as const) };
}
