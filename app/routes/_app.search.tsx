import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { globalSearch, MIN_SEARCH_LENGTH } from '~/models/search/registry.server';
import { pageTitle, truncate } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const q = (new URL(request.url).searchParams.get('q') ?? '').trim().slice(0, 200);
  const groups = await globalSearch({ accountId: ctx.account.id, q, limit: 50 });
  return { q, tooShort: q.length > 0 && q.length < MIN_SEARCH_LENGTH, groups };
}

export const handle = { breadcrumb: 'Search' };

/** The full results page of the global search, grouped by kind. */
export default function Search() {
  const { q, tooShort, groups } = useLoaderData<typeof loader>();
  return (
    <main className="page stack">
      <h1>Search</h1>
      {tooShort ? <p className="field-error">Type at least 3 characters.</p> : null}
      {!tooShort && q && groups.length === 0 ? <p>No results for “{q}”.</p> : null}
      {groups.map((g) => (
        <section key={g.group} className="card" data-testid={`search-group-${g.group}`}>
          <h2>{g.group}</h2>
          <ul>
            {g.hits.map((h) => (
              <li key={h.id}>
                <Link to={h.to} title={h.title}>
                  {truncate(h.title, 20)}
                </Link>{' '}
                {h.subtitle ? <span className="muted">{h.subtitle}</span> : null}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </main>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Search') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
