import { Form, Link, useFetcher } from '@remix-run/react';
import { useEffect, useState } from 'react';

export type ArticleLink = { id: number; title: string; knowledgeBase: string; url: string };

/**
 * A link to a published help-centre article in the reply box (section 7 `GET article/attachArticle`).
 * Without JavaScript: a search form (`?aq=`) and links that reload with `?attach=<id>` (the box then holds the
 * article's URL). With JavaScript: results as you type from /knowledgebase/attach-article, inserted at the cursor.
 */
export function ArticleLinks({
  query,
  found,
  keep,
  insert,
}: {
  query: string;
  found: ArticleLink[] | null;
  keep: Record<string, string>;
  insert: (text: string) => boolean;
}) {
  const fetcher = useFetcher<{ articles: ArticleLink[] }>();
  const [typed, setTyped] = useState<string | null>(null);
  const { load } = fetcher;
  useEffect(() => {
    if (typed === null) return;
    const t = setTimeout(() => load(`/knowledgebase/attach-article?${new URLSearchParams({ text: typed })}`), 200);
    return () => clearTimeout(t);
  }, [typed, load]);
  const results = typed !== null && fetcher.data ? fetcher.data.articles : found;
  return (
    <div data-testid="article-links">
      <Form method="get" className="row">
        {Object.entries(keep).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <input
          type="search"
          name="aq"
          defaultValue={query}
          aria-label="Search published articles"
          placeholder="Search published articles"
          onChange={(e) => setTyped(e.currentTarget.value)}
        />
        <button className="btn">Search</button>
      </Form>
      {results && results.length === 0 ? <p className="muted">No published article matches.</p> : null}
      {(results ?? []).map((r) => (
        <Link
          key={r.id}
          to={`?${new URLSearchParams({ ...keep, aq: query, attach: String(r.id) })}`}
          title={r.url}
          preventScrollReset
          onClick={(e) => {
            if (insert(r.url)) e.preventDefault();
          }}
        >
          {r.title} <span className="muted">({r.knowledgeBase})</span>
        </Link>
      ))}
    </div>
  );
}
