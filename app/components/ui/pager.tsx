import { Link, useLocation } from '@remix-run/react';

/** The one pager: hidden at one page or fewer; first and last jumps only above three pages (section 2). */
export function Pager({ page, pageSize, total, params: fixed, hash }: { page: number; pageSize: number; total: number; params?: Record<string, string>; hash?: string }) {
  const location = useLocation();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return null;
  const href = (p: number) => {
    const params = new URLSearchParams(location.search);
    // A second list on one page (`params` names it, e.g. q=delivery) pages without touching the first one's place.
    for (const [k, v] of Object.entries(fixed ?? {})) params.set(k, v);
    if (p <= 1) params.delete('page');
    else params.set('page', String(p));
    const qs = params.toString();
    return `${location.pathname}${qs ? `?${qs}` : ''}${hash ? `#${hash}` : ''}`;
  };
  const start = Math.max(1, Math.min(page - 2, pages - 4));
  const numbers = Array.from({ length: Math.min(5, pages) }, (_, i) => start + i);
  return (
    <nav className="pager" aria-label="Pagination">
      {pages > 3 && page > 1 ? <Link to={href(1)} aria-label="First page">«</Link> : null}
      {page > 1 ? <Link to={href(page - 1)} aria-label="Previous page">‹</Link> : null}
      {numbers.map((n) =>
        n === page ? (
          <span key={n} aria-current="page">
            {n}
          </span>
        ) : (
          <Link key={n} to={href(n)}>
            {n}
          </Link>
        ),
      )}
      {page < pages ? <Link to={href(page + 1)} aria-label="Next page">›</Link> : null}
      {pages > 3 && page < pages ? <Link to={href(pages)} aria-label="Last page">»</Link> : null}
    </nav>
  );
}

/** Reads `page` from a URL: a positive integer, 1 when absent or malformed. */
export function readPage(url: URL) {
  const n = Number(url.searchParams.get('page'));
  return Number.isInteger(n) && n > 0 ? n : 1;
}
