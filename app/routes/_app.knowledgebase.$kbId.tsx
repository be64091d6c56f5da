import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { ExternalLink } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { KB_MENU } from '~/models/knowledge-base/constants';
import { canUseFeature } from '~/utils/session.server';
import { NavAnchor } from '~/components/ui/anchor-link';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  const menu = KB_MENU.map((g) => ({
    group: g.group,
    items: g.items.map((item) => ({
      slug: item.slug,
      label: item.label,
      denied: item.feature && !canUseFeature(ctx, item.feature) ? ('feature' as const) : null,
    })),
  }));
  return { kb: { id: kb.id, name: kb.name, slug: kb.slug }, menu };
}

export const handle = {
  breadcrumb: (loaderData: { kb: { name: string } } | undefined) => loaderData?.kb.name ?? null,
};

/** The shell of one knowledge base (section 2): the side menu with locked markers, Preview, the page. */
export default function KnowledgeBaseShell() {
  const { kb, menu } = useLoaderData<typeof loader>();
  return (
    <div className="settings">
      <nav className="side-menu" aria-label="Knowledge base">
        <div className="kb-menu-head">
          <strong>{kb.name}</strong>
          {/* Section 2: Preview opens the public help centre. */}
          <a href={`/hc/${kb.slug}`} target="_blank" rel="noreferrer" className="btn">
            <ExternalLink aria-hidden="true" size={14} /> Preview
          </a>
        </div>
        {menu.map((g) =>
          g.group ? (
            <details key={g.group} open>
              <summary>{g.group}</summary>
              <MenuItems kbId={kb.id} items={g.items} />
            </details>
          ) : (
            <MenuItems key="main" kbId={kb.id} items={g.items} />
          ),
        )}
      </nav>
      <div className="page">
        <Outlet />
      </div>
    </div>
  );
}

function MenuItems({ kbId, items }: { kbId: number; items: { slug: string; label: string; denied: 'feature' | null }[] }) {
  return (
    <>
      {items.map((item) => (
        <NavAnchor key={item.slug} to={`/knowledgebase/${kbId}/${item.slug}`}>
          <span>{item.label}</span>
          {item.denied ? <DeniedBadge kind={item.denied} /> : null}
        </NavAnchor>
      ))}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
