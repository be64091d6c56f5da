import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { articlePath } from '~/models/knowledge-base/constants';
import { findPublicKnowledgeBase, MARK_END, MARK_START, searchPublicArticles } from '~/models/knowledge-base/public.server';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireHelpAccount } from '~/models/knowledge-base/help-host.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  // Also here, not only in the layout: a data request may ask for this loader alone (ADR 157).
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled', page: true });
  const q = new URL(request.url).searchParams.get('q')?.trim().slice(0, 200) ?? '';
  if (q) await enforceRateLimit(`hc-search:${clientIp(request)}`, { limit: 120, windowMs: 60_000 });
  const result = await searchPublicArticles({ accountId: account.id, knowledgeBaseId: kb.id, q, language: kb.language });
  return { kb: { slug: kb.slug, name: kb.helpName || kb.name }, q, ...result };
}

export const handle = { hydrate: false };

/** A snippet with its search marks as <mark>, everything else as text (never as HTML). */
function Snippet({ text }: { text: string }) {
  const parts = text.split(MARK_START);
  return (
    <p className="muted">
      {parts.map((part, i) => {
        if (i === 0) return <span key={i}>{part}</span>;
        const [marked, rest = ''] = part.split(MARK_END);
        return (
          <span key={i}>
            <mark>{marked}</mark>
            {rest}
          </span>
        );
      })}
    </p>
  );
}

export default function PublicSearch() {
  const { kb, q, hits, fuzzy, searchId } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>{q ? `Results for “${q}”` : 'Search'}</h1>
      {q && hits.length === 0 ? <p data-testid="no-results">No article matches your search. Try other words.</p> : null}
      {fuzzy ? <p className="muted">No exact match; these articles are close to what you typed.</p> : null}
      <ol className="hc-list hc-results" data-testid="hc-results">
        {hits.map((h) => (
          <li key={h.id}>
            <Link to={`${articlePath(kb.slug, { id: h.id, slug: h.slug })}${searchId ? `?s=${searchId}` : ''}`} reloadDocument>
              {h.title}
            </Link>
            <Snippet text={h.snippet ?? ''} />
          </li>
        ))}
      </ol>
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Search${data.q ? `: ${data.q}` : ''} | ${data.kb.name}` : 'Not found' },
  { name: 'robots', content: 'noindex' },
];
