import { Link } from '@remix-run/react';
import { articlePath } from '~/models/knowledge-base/constants';

type ListedArticle = { id: number; title: string | null; slug: string | null; text?: string | null };

/** The help centre's list of article links (home, category page): one markup, one class set. */
export function HcArticleList({ kbSlug, articles, className = 'hc-list' }: { kbSlug: string; articles: ListedArticle[]; className?: string }) {
  return (
    <ul className={className}>
      {articles.map((a) => (
        <li key={a.id}>
          <Link to={articlePath(kbSlug, { id: a.id, slug: a.slug ?? '' })} reloadDocument>
            {a.title}
          </Link>
          {a.text ? <p className="muted">{a.text}…</p> : null}
        </li>
      ))}
    </ul>
  );
}
