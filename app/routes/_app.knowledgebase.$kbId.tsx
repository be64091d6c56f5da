import { data, type LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { ExternalLink } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { helpCentreAddress } from '~/models/knowledge-base/help-host.server';
import { readLastKnowledgeBase, rememberKnowledgeBase } from '~/models/knowledge-base/last-opened.server';
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
  const kbData = { kb: { id: kb.id, name: kb.name, preview: helpCentreAddress(request, ctx.account.domain, kb) }, menu };
  // Section 2: selecting a knowledge base remembers its id and name (set again only when it changed).
  const last = await readLastKnowledgeBase(request, ctx.user.id);
  if (last?.id === kb.id && last.name === kb.name) return kbData;
  return data(kbData, { headers: { 'Set-Cookie': await rememberKnowledgeBase({ userId: ctx.user.id, kb }) } });
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
          {/* Section 2: Preview opens the public help centre: the custom domain if set, otherwise the help subdomain. */}
          <a href={kb.preview} target="_blank" rel="noreferrer" className="btn" data-testid="kb-preview">
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
