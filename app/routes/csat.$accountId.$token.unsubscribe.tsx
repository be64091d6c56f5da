import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { findCsatRating, unsubscribeCsat } from '~/models/csat/csat.server';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';

/** Unsubscribe from rating emails: GET confirms, POST (the button, or RFC 8058's one-click POST) unsubscribes. */
export const handle = { hydrate: false };

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  const found = await findCsatRating({ accountId: account.id, token: params.token ?? '' });
  if (!found?.rating.email) throw new Response('This link is not valid.', { status: 404 });
  return { account, email: found.rating.email, token: found.rating.token };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const l = await load(request, params);
  return { email: l.email, done: false };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const l = await load(request, params);
  await enforceRateLimit(`csat-unsubscribe:${clientIp(request)}`, { limit: 60, windowMs: 60_000 });
  await unsubscribeCsat({ accountId: l.account.id, token: l.token });
  return { email: l.email, done: true };
}

export const meta: MetaFunction = () => [{ title: 'Unsubscribe' }, { name: 'robots', content: 'noindex' }];

export default function CsatUnsubscribe() {
  const loaded = useLoaderData<typeof loader>();
  const p = useActionData<typeof action>() ?? loaded;
  return (
    <main id="main" className="page">
      {p.done ? (
        <h1>{p.email} will not receive rating emails from us again.</h1>
      ) : (
        <Form method="post" reloadDocument>
          <h1>Stop rating emails to {p.email}?</h1>
          <button type="submit" className="btn" name="intent" value="unsubscribe">
            Unsubscribe
          </button>
        </Form>
      )}
    </main>
  );
}
