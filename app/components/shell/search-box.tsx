import { Form, Link, useFetcher } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { truncate } from '~/utils/format';

type Group = { group: string; hits: { id: string | number; title: string; subtitle?: string; to: string }[]; more?: boolean };

/**
 * The shell's global search. Without JavaScript: a GET form to the results page. With it: from 3
 * characters, debounced 500 ms, a dropdown of groups with titles cut to 20 characters, each group with a link
 * to its full results when it has more.
 */
export function SearchBox({ initial }: { initial: string }) {
  const fetcher = useFetcher<{ q: string; groups: Group[] }>();
  const [q, setQ] = useState(initial);
  const [open, setOpen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const onChange = (value: string) => {
    setQ(value);
    clearTimeout(timer.current);
    if (value.trim().length < 3) {
      setOpen(false);
      return;
    }
    timer.current = setTimeout(() => {
      fetcher.load(`/search?q=${encodeURIComponent(value.trim())}`);
      setOpen(true);
    }, 500);
  };
  const groups = fetcher.data?.groups ?? [];
  return (
    <Form method="get" action="/search" className="search-form" role="search" style={{ position: 'relative' }}>
      <input
        type="search"
        name="q"
        value={q}
        onChange={(e) => onChange(e.target.value)}
        onBlur={() => setTimeout(() => setOpen(false), 200)}
        placeholder="Search (3+ characters)"
        aria-label="Search"
        autoComplete="off"
      />
      {open && q.trim().length >= 3 ? (
        <div className="menu-items search-dropdown" data-testid="search-dropdown" style={{ position: 'absolute', right: 0, top: '2.3rem', background: '#fff' }}>
          {fetcher.state !== 'idle' ? <p className="muted" style={{ padding: '0 .9rem' }}>Searching…</p> : null}
          {fetcher.state === 'idle' && groups.length === 0 ? <p className="muted" style={{ padding: '0 .9rem' }}>No results</p> : null}
          {groups.map((g) => (
            <div key={g.group}>
              <strong style={{ padding: '0 .9rem' }}>{g.group}</strong>
              {g.hits.slice(0, 5).map((h) => (
                <Link key={h.id} to={h.to} title={h.title}>
                  {truncate(h.title, 20)}
                </Link>
              ))}
              {g.more || g.hits.length > 5 ? (
                <Link to={`/search?${new URLSearchParams({ q: q.trim(), group: g.group })}`} className="muted">
                  More {g.group.toLowerCase()}…
                </Link>
              ) : null}
            </div>
          ))}
          <Link to={`/search?q=${encodeURIComponent(q.trim())}`}>All results</Link>
        </div>
      ) : null}
    </Form>
  );
}
