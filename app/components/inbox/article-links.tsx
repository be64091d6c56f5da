import { Form, Link, useFetcher } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';

export type LinkableArticle = { id: number; title: string; knowledgeBase: string; url: string };

/** What goes into the reply for an article: its title and public address. */
export const articleLinkText = (article: Pick<LinkableArticle, 'title' | 'url'>) => `${article.title}: ${article.url}`;

/**
 * Help-centre articles in the reply box (section 7 `GET article/attachArticle`). Without JavaScript: a search form
 * (`?aq=`) and links that reload with `?article=<id>` (the box then holds the link). With JavaScript: results as
 * the agent types (from /article/attach-article), inserted at the cursor.
 */
export function ArticleLinks({
  query,
  found,
  keep,
  insert,
}: {
  query: string | null;
  found: LinkableArticle[];
  keep: Record<string, string>;
  insert: (text: string) => boolean;
}) {
  const fetcher = useFetcher<{ articles: LinkableArticle[] }>();
  const [typed, setTyped] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const results = typed !== null && fetcher.data ? fetcher.data.articles : found;
  const searched = typed ?? query;
  return (
    <div data-testid="article-links">
      <Form method="get" className="row" role="search">
        {Object.entries(keep).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <input
          type="search"
          name="aq"
          defaultValue={query ?? ''}
          aria-label="Search articles"
          placeholder="Search published articles"
          maxLength={100}
          onChange={(e) => {
            const text = e.currentTarget.value;
            setTyped(text);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => fetcher.load(`/article/attach-article?${new URLSearchParams({ text })}`), 250);
          }}
        />
        <button className="btn">Search</button>
      </Form>
      {searched !== null && results.length === 0 && fetcher.state === 'idle' ? <p className="muted">No published article matches.</p> : null}
      {results.map((article) => (
        <Link
          key={article.id}
          to={`?${new URLSearchParams({ ...keep, article: String(article.id) })}`}
          title={article.url}
          preventScrollReset
          onClick={(e) => {
            if (insert(articleLinkText(article))) e.preventDefault();
          }}
        >
          {article.title} <span className="muted">({article.knowledgeBase})</span>
        </Link>
      ))}
    </div>
  );
}
