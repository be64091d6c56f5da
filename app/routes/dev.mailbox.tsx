import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { isDevMailboxEnabled, listDevMailbox } from '~/models/mail/mail.server';
import { formatDateTime, pageTitle } from '~/utils/format';

/**
 * The development mailbox: with no SMTP_URL, mail Parley would send is kept here so sign-up works on a
 * fresh machine. It disappears (404) as soon as SMTP_URL is set.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const peerAddress = typeof context.peerAddress === 'string' ? context.peerAddress : undefined;
  if (!isDevMailboxEnabled({ peerAddress })) throw new Response('Not Found', { status: 404 });
  const to = new URL(request.url).searchParams.get('to')?.trim() || undefined;
  const mails = await listDevMailbox({ to, limit: 50 });
  return { to: to ?? '', mails: mails.map((m) => ({ id: m.id, to: m.to, subject: m.subject, text: m.text, createdAt: m.createdAt.toISOString() })) };
}

export default function DevMailbox() {
  const { to, mails } = useLoaderData<typeof loader>();
  return (
    <main id="main" className="page">
      <h1>Development mailbox</h1>
      <p className="muted">SMTP_URL is not set, so Parley keeps outgoing mail here instead of sending it. Set SMTP_URL in production.</p>
      <Form method="get" className="row">
        <input name="to" defaultValue={to} placeholder="Recipient" aria-label="Recipient" />
        <button className="btn" type="submit">
          Filter
        </button>
      </Form>
      {mails.length === 0 ? <p>No mail.</p> : null}
      {mails.map((m) => (
        <article key={m.id} className="mail" data-testid="mail">
          <strong>{m.subject}</strong>
          <div className="muted">
            To {m.to} · {formatDateTime(m.createdAt)}
          </div>
          <pre>{m.text}</pre>
        </article>
      ))}
    </main>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Mailbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
