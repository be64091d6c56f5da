import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { KB_MENU } from '~/models/knowledge-base/constants';
import { pageTitle } from '~/utils/format';
import { requireFeature } from '~/utils/session.server';

/**
 * The side-menu pages not built yet (customization and the settings group): the plan's lock is enforced, and
 * the page says plainly that the settings are not available yet rather than showing a form that saves nothing.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx } = await requireKnowledgeBase(request, params.kbId);
  const item = KB_MENU.flatMap((g) => g.items).find((i) => i.slug === params.section);
  if (!item || item.slug === 'articles' || item.slug === 'categories') throw new Response('Not Found', { status: 404 });
  if (item.feature) await requireFeature(request, item.feature, ctx);
  return { label: item.label };
}

export const handle = { breadcrumb: (loaderData: { label: string } | undefined) => loaderData?.label ?? null };

export default function NotYetBuilt() {
  const { label } = useLoaderData<typeof loader>();
  return (
    <section className="settings-page">
      <h1>{label}</h1>
      <p className="card" data-testid="not-built">
        These settings are not available yet in this version of Parley.
      </p>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.label ?? 'Settings', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
