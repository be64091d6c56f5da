import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, Outlet, useLoaderData, useRouteError, useRouteLoaderData, isRouteErrorResponse, useParams } from '@remix-run/react';
import { Search } from 'lucide-react';
import type { CSSProperties } from 'react';
import { findPublicKnowledgeBase } from '~/models/knowledge-base/public.server';
import { helpCentreLook, type HelpCentreLook } from '~/models/knowledge-base/help-settings.server';
import { findRedirect } from '~/models/knowledge-base/redirects.server';
import { isHelpHostRequest, requireHelpAccount } from '~/models/knowledge-base/help-host.server';
import { useNonce } from '~/utils/nonce-provider';
import hcStyles from '../styles/hc.css?url';
import { requirePlanFeature } from '~/models/plans/enforce.server';
import { accountHasFeature } from '~/models/accounts/accounts.server';
import { FEATURE_DENIED_MESSAGE } from '~/models/shell/denied-messages';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: hcStyles }];

/** The public help centre of one knowledge base: no sign-in, no script (ADR 050). docsVisible off hides it all. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled', page: true });
  // Redirect Rules (ADR 057): a path named by a rule answers 301 before any page of the help centre.
  const rest = new URL(request.url).pathname.slice(`/hc/${kb.slug}`.length);
  if (rest.length > 1) {
    const destination = await findRedirect({ accountId: account.id, knowledgeBaseId: kb.id, path: rest.replace(/\/+$/, '') });
    if (destination) throw redirect(`/hc/${kb.slug}${destination}`, 301);
  }
  // Custom CSS/JS and Google Analytics run only on the help host, which has no agent session (ADR 056).
  const helpHost = isHelpHostRequest(request);
  return {
    kb: { slug: kb.slug, name: kb.helpName || kb.name },
    look: helpCentreLook(kb),
    // Each runs only while the plan has it (ADR 157); the stored code stays for a plan that has it again.
    custom: helpHost
      ? {
          css: kb.customCss && (await accountHasFeature({ accountId: account.id, key: 'knowledgeBase/customCss' })) ? kb.customCss : '',
          js: kb.customJs && (await accountHasFeature({ accountId: account.id, key: 'knowledgeBase/customJavascript' })) ? kb.customJs : '',
        }
      : { css: '', js: '' },
    analytics: helpHost && kb.gaKey ? { key: kb.gaKey, anonymizeIp: kb.anonymizedIp } : null,
  };
}

/** Text inside <script>/<style> cannot end the element early. */
const inert = (code: string) => code.replace(/<\//g, '<\\/');

/** The help host's own code: custom CSS, Google Analytics when a key is set, custom JavaScript; each with the nonce. */
function HelpHostCode({ custom, analytics }: { custom: { css: string; js: string }; analytics: { key: string; anonymizeIp: boolean } | null }) {
  const nonce = useNonce();
  const gtag = analytics
    ? `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config',${JSON.stringify(analytics.key)}${
        analytics.anonymizeIp ? ',{anonymize_ip:true}' : ''
      });`
    : '';
  return (
    <>
      {custom.css ? <style nonce={nonce} data-testid="hc-custom-css" dangerouslySetInnerHTML={{ __html: inert(custom.css) }} /> : null}
      {analytics ? <script nonce={nonce} async src={`https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(analytics.key)}`} /> : null}
      {analytics ? <script nonce={nonce} dangerouslySetInnerHTML={{ __html: gtag }} /> : null}
      {custom.js ? <script nonce={nonce} data-testid="hc-custom-js" dangerouslySetInnerHTML={{ __html: inert(custom.js) }} /> : null}
    </>
  );
}

export const handle = { hydrate: false };

function SearchForm({ slug, q }: { slug: string; q?: string }) {
  return (
    <Form method="get" action={`/hc/${slug}/search`} className="hc-search" role="search" reloadDocument>
      <label htmlFor="hc-q" className="visually-hidden">
        Search the help centre
      </label>
      <input id="hc-q" type="search" name="q" defaultValue={q} maxLength={200} placeholder="Search for answers" />
      <button type="submit" className="btn btn-primary">
        <Search aria-hidden="true" size={16} /> Search
      </button>
    </Form>
  );
}

const PLAIN_LOOK: HelpCentreLook = { logoUrl: null, brandColor: null, headerTextColor: null, headerLinks: [] };

/** The help centre's frame, drawn with its Customization (ADR 058): logo, brand-coloured header, header links. */
export function HelpCentreFrame({ slug, name, look = PLAIN_LOOK, children }: { slug: string; name: string; look?: HelpCentreLook; children: React.ReactNode }) {
  const branded = look.brandColor ? ({ '--hc-brand': look.brandColor, '--hc-header-text': look.headerTextColor } as CSSProperties) : undefined;
  return (
    <div className="hc" data-branded={branded ? '' : undefined} style={branded}>
      <header className="hc-header">
        <Link to={`/hc/${slug}`} className="hc-home" reloadDocument>
          {look.logoUrl ? <img src={look.logoUrl} alt="" className="hc-logo" data-testid="hc-logo" /> : null}
          <span>{name}</span>
        </Link>
        {look.headerLinks.length ? (
          <nav className="hc-links" aria-label="Links">
            <ul>
              {look.headerLinks.map((l, i) => (
                <li key={i}>
                  <a href={l.url}>{l.label}</a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <SearchForm slug={slug} />
      </header>
      <main id="main">{children}</main>
      <footer className="hc-footer">Powered by Parley</footer>
    </div>
  );
}

export default function HelpCentre() {
  const { kb, look, custom, analytics } = useLoaderData<typeof loader>();
  return (
    <HelpCentreFrame slug={kb.slug} name={kb.name} look={look}>
      <Outlet />
      <HelpHostCode custom={custom} analytics={analytics} />
    </HelpCentreFrame>
  );
}

/** A 404 inside the help centre offers a search instead of a dead end. */
export function ErrorBoundary() {
  const error = useRouteError();
  const { kbSlug = '' } = useParams();
  // A page missing inside a help centre that exists keeps its look (Customization); otherwise the plain frame.
  const layout = useRouteLoaderData<typeof loader>('routes/hc.$kbSlug');
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  // The account's plan lacks the knowledge base (ADR 157): the specification's message, and no search to offer.
  const planDenied = isRouteErrorResponse(error) && error.status === 403 && (error.data as { denied?: string } | null)?.denied === 'feature';
  const body = planDenied ? (
    <>
      <h1>This help centre is not available</h1>
      <p data-testid="feature-denied">{FEATURE_DENIED_MESSAGE}</p>
    </>
  ) : (
    <>
      <h1>{notFound ? 'Page not found' : 'Something went wrong'}</h1>
      <p>{notFound ? 'This page does not exist or is no longer published.' : 'Please try again in a moment.'}</p>
    </>
  );
  if (layout) {
    return (
      <HelpCentreFrame slug={layout.kb.slug} name={layout.kb.name} look={layout.look}>
        {body}
      </HelpCentreFrame>
    );
  }
  return (
    <div className="hc">
      <main id="main">
        {body}
        {planDenied ? null : <SearchForm slug={kbSlug} />}
      </main>
    </div>
  );
}
