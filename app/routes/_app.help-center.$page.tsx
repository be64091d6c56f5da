import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { GUIDE_PAGES } from '~/models/help/guide';
import { getGuidePage } from '~/models/help/guide.server';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request);
  const page = await getGuidePage(params.page ?? '');
  if (!page) throw new Response('Not Found', { status: 404 });
  return { page: { slug: page.slug, title: page.title, html: page.html }, pages: GUIDE_PAGES };
}

export const handle = {
  breadcrumb: (data: { page: { title: string } } | undefined) => (data ? data.page.title : null),
};

/** One page of the user guide (docs/guide/<page>.md), rendered on the server and sanitised. */
export default function GuidePageView() {
  const { page, pages } = useLoaderData<typeof loader>();
  return (
    <section className="settings-page help-center">
      <header>
        <div>
          <p>
            <Link to="/help-center">Help Center</Link>
          </p>
        </div>
        <div className="spacer" />
        <Form method="get" action="/help-center" role="search">
          <input name="q" type="search" aria-label="Search the guide" placeholder="Search the guide" />{' '}
          <button type="submit" className="btn">
            Search
          </button>
        </Form>
      </header>
      {/* Our own Markdown, rendered by marked and passed through sanitize-html on the server. */}
      <article className="card guide" data-testid="guide-page" dangerouslySetInnerHTML={{ __html: page.html }} />
      <nav aria-label="Guide pages" className="card">
        <ul className="stack">
          {pages.map((p) => (
            <li key={p.slug}>{p.slug === page.slug ? <strong>{p.title}</strong> : <Link to={`/help-center/${p.slug}`}>{p.title}</Link>}</li>
          ))}
        </ul>
      </nav>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.page.title ?? 'Help Center', 'Help Center') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
