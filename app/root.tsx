import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ShouldRevalidateFunction } from '@remix-run/react';
import { data } from '@remix-run/node';
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useMatches } from '@remix-run/react';
import { GeneralErrorBoundary } from './components/error-boundary';
import { isLiveRevalidation } from './components/shell/use-live';
import { Toasts } from './components/ui/toasts';
import styles from './styles/app.css?url';
import { useNonce } from './utils/nonce-provider';
import { readToast } from './utils/toast.server';

// No favicon yet: an empty one spares every page a 404 in the console.
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: styles }, { rel: 'icon', href: 'data:,' }];

export async function loader({ request }: LoaderFunctionArgs) {
  const { toast, setCookie } = await readToast(request);
  return data({ toast }, setCookie ? { headers: { 'Set-Cookie': setCookie } } : undefined);
}

/** A live update reloads only the screen's loader (ADR 045). */
export const shouldRevalidate: ShouldRevalidateFunction = ({ defaultShouldRevalidate }) => (isLiveRevalidation() ? false : defaultShouldRevalidate);

export const meta: MetaFunction = () => [{ title: 'Parley' }];

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  // Pages that need no script (the public help centre, ADR 050) say so with `handle.hydrate = false`.
  const hydrate = !useMatches().some((m) => (m.handle as { hydrate?: boolean } | undefined)?.hydrate === false);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to main content
        </a>
        {children}
        {hydrate ? <ScrollRestoration nonce={nonce} /> : null}
        {hydrate ? <Scripts nonce={nonce} /> : null}
      </body>
    </html>
  );
}

export default function App() {
  const { toast } = useLoaderData<typeof loader>();
  return (
    <>
      <Outlet />
      <Toasts toast={toast} />
    </>
  );
}

export function ErrorBoundary() {
  return (
    <main id="main">
      <GeneralErrorBoundary />
    </main>
  );
}
