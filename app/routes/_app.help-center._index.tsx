import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { GUIDE_PAGES } from '~/models/help/guide';
import { searchGuide } from '~/models/help/guide.server';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  const q = (new URL(request.url).searchParams.get('q') ?? '').trim().slice(0, 200);
  return { q, pages: GUIDE_PAGES, hits: q ? await searchGuide(q) : null };
}

export const handle = { breadcrumb: 'Help Center' };

/** The user guide's front page: search, then every page. */
export default function HelpCenter() {
  const { q, pages, hits } = useLoaderData<typeof loader>();
  return (
    <section className="settings-page help-center">
      <header>
        <div>
          <h1>Help Center</h1>
          <p className="muted">Parley&apos;s user guide: how each screen works and what each setting does.</p>
        </div>
      </header>
      <Form method="get" role="search" className="card stack">
        <label htmlFor="help-q">Search the guide</label>
        <div className="row">
          <input id="help-q" name="q" type="search" defaultValue={q} placeholder="e.g. business hours, SLA, widget" />
          <button type="submit" className="btn">
            Search
          </button>
        </div>
      </Form>
      {hits ? (
        <div className="card" data-testid="help-results">
          <h2>
            {hits.length === 0 ? 'Nothing found' : `${hits.length} ${hits.length === 1 ? 'result' : 'results'}`} for “{q}”
          </h2>
          <ul className="stack">
            {hits.map((h) => (
              <li key={`${h.slug}#${h.id}`}>
                <Link to={`/help-center/${h.slug}${h.id ? `#${h.id}` : ''}`}>
                  {h.heading === h.pageTitle ? h.pageTitle : `${h.pageTitle} › ${h.heading}`}
                </Link>
                <p className="muted">{h.snippet}</p>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <nav aria-label="Guide pages" className="card">
        <h2>Guide</h2>
        <ul className="stack">
          {pages.map((p) => (
            <li key={p.slug}>
              <Link to={`/help-center/${p.slug}`}>{p.title}</Link>
            </li>
          ))}
        </ul>
      </nav>
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Help Center') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
