import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { findRecipient, unsubscribeRecipient } from '~/models/surveys/email-surveys.server';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';
import surveyStyles from '../styles/survey.css?url';

/**
 * Unsubscribe from an account's survey emails. GET shows a confirmation button (a link scanner's visit changes
 * nothing); POST unsubscribes — the form's button, and the mail client's one-click POST of RFC 8058
 * (`List-Unsubscribe=One-Click`), which carries no intent.
 */

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: surveyStyles }];
export const handle = { hydrate: false };

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  const recipient = await findRecipient({ accountId: account.id, token: params.token ?? '' });
  if (!recipient) throw new Response('This link is not valid.', { status: 404 });
  return { account, recipient };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { recipient } = await load(request, params);
  return { email: recipient.email, done: false };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { account, recipient } = await load(request, params);
  await enforceRateLimit(`survey-unsubscribe:${clientIp(request)}`, { limit: 60, windowMs: 60_000 });
  await unsubscribeRecipient({ accountId: account.id, token: recipient.token });
  return data({ email: recipient.email, done: true });
}

export const meta: MetaFunction = () => [{ title: 'Unsubscribe' }, { name: 'robots', content: 'noindex' }];

export default function Unsubscribe() {
  const loaded = useLoaderData<typeof loader>();
  const acted = useActionData<typeof action>();
  const p = acted ?? loaded;
  return (
    <div className="sv">
      <main id="main" className="sv-main">
        <div className="sv-card sv-end" role="status">
          {p.done ? (
            <>
              <h1>You are unsubscribed</h1>
              <p>{p.email} will not receive survey emails from us again.</p>
            </>
          ) : (
            <>
              <h1>Unsubscribe from survey emails</h1>
              <p>Stop sending survey emails to {p.email}?</p>
              <Form method="post" reloadDocument>
                <button type="submit" name="intent" value="unsubscribe" className="sv-btn">
                  Unsubscribe
                </button>
              </Form>
            </>
          )}
        </div>
      </main>
    </div>
  );
}
