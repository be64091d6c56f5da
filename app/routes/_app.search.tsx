import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Pager, readPage } from '~/components/ui/pager';
import { globalSearch, MIN_SEARCH_LENGTH, searchGroup, type SearchHit } from '~/models/search/registry.server';
import { pageTitle, truncate } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 200);
  const tooShort = q.length > 0 && q.length < MIN_SEARCH_LENGTH;
  const groupName = url.searchParams.get('group');
  if (groupName) {
    const group = await searchGroup({ accountId: ctx.account.id, q, group: groupName, page: readPage(url) });
    if (!group) throw new Response('Not Found', { status: 404 });
    return { q, tooShort, groups: [], group: { ...group, page: readPage(url) } };
  }
  return { q, tooShort, groups: await globalSearch({ accountId: ctx.account.id, q }), group: null };
}

export const handle = { breadcrumb: 'Search' };

function moreHref(q: string, group: string) {
  return `/search?${new URLSearchParams({ q, group })}`;
}

function Hits({ hits }: { hits: SearchHit[] }) {
  return (
    <ul>
      {hits.map((h) => (
        <li key={h.id}>
          <Link to={h.to} title={h.title}>
            {truncate(h.title, 20)}
          </Link>{' '}
          {h.subtitle ? <span className="muted">{h.subtitle}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * The global search's results: every group with its first hits and a "more" link, or (with `group`) one
 * group's full results with the pager. The shell's search box submits here as a plain GET form.
 */
export default function Search() {
  const { q, tooShort, groups, group } = useLoaderData<typeof loader>();
  if (group) {
    return (
      <div className="page stack">
        <h1>
          {group.group}: “{q}”
        </h1>
        <p>
          <Link to={`/search?${new URLSearchParams({ q })}`}>All groups</Link>
        </p>
        {tooShort ? <p className="field-error">Type at least 3 characters.</p> : null}
        {!tooShort && group.total === 0 ? <p>No results for “{q}”.</p> : null}
        <section className="card" data-testid={`search-group-${group.group}`}>
          <Hits hits={group.hits} />
        </section>
        <Pager page={group.page} pageSize={group.pageSize} total={group.total} />
      </div>
    );
  }
  return (
    <div className="page stack">
      <h1>Search</h1>
      {tooShort ? <p className="field-error">Type at least 3 characters.</p> : null}
      {!tooShort && q && groups.length === 0 ? <p>No results for “{q}”.</p> : null}
      {groups.map((g) => (
        <section key={g.group} className="card" data-testid={`search-group-${g.group}`}>
          <h2>{g.group}</h2>
          <Hits hits={g.hits} />
          {g.more ? (
            <p>
              <Link to={moreHref(q, g.group)} aria-label={`More ${g.group}`}>
                More
              </Link>
            </p>
          ) : null}
        </section>
      ))}
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Search') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
