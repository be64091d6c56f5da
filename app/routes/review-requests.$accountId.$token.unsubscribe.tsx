import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { findReviewRequest, unsubscribeReviewRequests } from '~/models/reviews/requests.server';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';

/**
 * Unsubscribe from review-request emails (ADR 086): GET confirms (a link scanner's visit changes nothing); POST — the
 * button, or the mail client's one-click POST of RFC 8058 — unsubscribes. The same pattern as the CSAT and survey links.
 */
export const handle = { hydrate: false };

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  const found = await findReviewRequest({ accountId: account.id, token: params.token ?? '' });
  if (!found) throw new Response('This link is not valid.', { status: 404 });
  return { account, email: found.email ?? '', token: found.token };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const l = await load(request, params);
  return { email: l.email, done: false };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const l = await load(request, params);
  await enforceRateLimit(`review-request-unsubscribe:${clientIp(request)}`, { limit: 60, windowMs: 60_000 });
  await unsubscribeReviewRequests({ accountId: l.account.id, token: l.token });
  return { email: l.email, done: true };
}

export const meta: MetaFunction = () => [{ title: 'Unsubscribe' }, { name: 'robots', content: 'noindex' }];

export default function ReviewRequestUnsubscribe() {
  const loaded = useLoaderData<typeof loader>();
  const p = useActionData<typeof action>() ?? loaded;
  return (
    <main id="main" className="page">
      {p.done ? (
        <h1 data-testid="unsubscribed">{`${p.email} will not receive review requests from us again.`}</h1>
      ) : (
        <Form method="post" reloadDocument>
          <h1>{`Stop review requests to ${p.email}?`}</h1>
          <button type="submit" className="btn" name="intent" value="unsubscribe">
            Unsubscribe
          </button>
        </Form>
      )}
    </main>
  );
}
