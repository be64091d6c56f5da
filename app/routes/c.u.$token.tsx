import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readUnsubscribeLink, unsubscribe } from '~/models/campaigns/recipients.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';

/**
 * The unsubscribe page of a campaign email (ADR 065): plain HTML, no sign-in, no script. GET never changes anything
 * (link scanners open links); the button posts. The same URL takes RFC 8058 one-click posts from mail providers.
 */
export const handle = { hydrate: false };

export async function loader({ params }: LoaderFunctionArgs) {
  const link = await readUnsubscribeLink(params.token ?? '');
  if (!link) throw new Response('This unsubscribe link is not valid.', { status: 404 });
  return { address: link.address, accountName: link.accountName, done: link.done };
}

export async function action({ request, params }: ActionFunctionArgs) {
  await enforceRateLimit(`campaign-unsubscribe:${clientIp(request)}`, { limit: 60, windowMs: 60_000 });
  const ok = await unsubscribe(params.token ?? '');
  if (!ok) throw new Response('This unsubscribe link is not valid.', { status: 404 });
  // A one-click post (List-Unsubscribe=One-Click) wants a plain 200, a person the page again.
  const body = await request.text().catch(() => '');
  if (/List-Unsubscribe=One-Click/i.test(body)) return new Response('Unsubscribed', { status: 200, headers: { 'Content-Type': 'text/plain' } });
  return redirect(new URL(request.url).pathname);
}

export default function Unsubscribe() {
  const { address, accountName, done } = useLoaderData<typeof loader>();
  return (
    <main className="public-page stack" style={{ maxWidth: 480, margin: '3rem auto', padding: '0 1rem' }}>
      <h1>{done ? 'You are unsubscribed' : 'Unsubscribe'}</h1>
      {done ? (
        <p data-testid="unsubscribed">
          {address} will get no more campaign emails from {accountName}.
        </p>
      ) : (
        <>
          <p>
            Stop campaign emails from {accountName} to <strong>{address}</strong>?
          </p>
          <Form method="post">
            <button type="submit" className="btn btn-primary" name="intent" value="unsubscribe">
              Unsubscribe
            </button>
          </Form>
        </>
      )}
    </main>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Unsubscribe') }, { name: 'robots', content: 'noindex' }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
