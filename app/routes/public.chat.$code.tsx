import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { BRAND_COLOURS } from '~/models/channels/messenger-constants';
import { chatPageMessageSchema } from '~/models/channels/messenger-settings';
import {
  getInboxByChatPageCode,
  isInboxOnline,
  listVisitorMessages,
  postVisitorMessage,
  startVisitor,
  visitorFromToken,
  WIDGET_POST_LIMIT,
  WidgetInputError,
} from '~/models/channels/widget.server';
import { botTurn } from '~/models/chatbots/runner.server';
import { formatTime, pageTitle } from '~/utils/format';
import { enforceRateLimit } from '~/utils/rate-limit.server';
import { protocolOf, requireAccount } from '~/utils/tenant.server';
import { requirePlanFeature } from '~/models/plans/enforce.server';

/**
 * A web inbox's hosted chat page, on the account's host: plain HTML that works without JavaScript (a form and a
 * reload), for visitors whose browser cannot run the widget. The visitor token lives in a cookie of this page only.
 */

const cookieName = (inboxId: number) => `parley_chat_${inboxId}`;

async function requireChatPage(request: Request, code: string | undefined) {
  const account = await requireAccount(request);
  const found = await getInboxByChatPageCode({ accountId: account.id, code: code ?? '' });
  if (!found) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'channels/chatPages', page: true });
  return found;
}

function readToken(request: Request, inboxId: number) {
  const cookie = request.headers.get('cookie') ?? '';
  const match = new RegExp(`(?:^|;\\s*)${cookieName(inboxId)}=([^;]+)`).exec(cookie);
  return match ? decodeURIComponent(match[1]) : null;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { inbox, settings } = await requireChatPage(request, params.code);
  const found = await visitorFromToken(readToken(request, inbox.id));
  const visitor = found && found.inbox.id === inbox.id ? found.visitor : null;
  return {
    page: {
      heading: settings.chatPage.heading,
      subHeading: settings.chatPage.subHeading,
      color: BRAND_COLOURS[settings.appearance.brandColor],
      teamName: settings.configure.teamName,
    },
    online: await isInboxOnline({ accountId: inbox.accountId, inbox }),
    offlineMessage: settings.offline.offlineMessage,
    welcomeMessage: settings.configure.welcomeMessage,
    messages: visitor ? await listVisitorMessages({ visitor }) : [],
    started: Boolean(visitor?.conversationId),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { inbox } = await requireChatPage(request, params.code);
  // /public/ skips the app-wide CSRF check; this page's form only ever posts from its own origin.
  const origin = request.headers.get('origin');
  if (origin && origin !== 'null' && new URL(origin).host !== new URL(request.url).host) throw new Response('Cross-origin request refused', { status: 403 });
  if (origin === 'null') throw new Response('Cross-origin request refused', { status: 403 });
  const started = await startVisitor({ inbox, token: readToken(request, inbox.id) });
  const { visitor } = started;
  await enforceRateLimit(`widget-post:${visitor.id}`, WIDGET_POST_LIMIT);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: chatPageMessageSchema({ first: !visitor.conversationId }) });
  const secure = protocolOf(request) === 'https:' ? '; Secure' : '';
  const cookie = `${cookieName(inbox.id)}=${encodeURIComponent(started.token)}; Path=/public/chat/${
    params.code
  }; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`;
  if (submission.status !== 'success') return data(submission.reply(), { status: 400, headers: { 'Set-Cookie': cookie } });
  try {
    const { conversationId } = await postVisitorMessage({ visitor, text: submission.value.message, name: submission.value.name, email: submission.value.email });
    await botTurn(request, { visitor, conversationId, text: submission.value.message, pageUrl: request.url });
  } catch (err) {
    if (err instanceof WidgetInputError) return data(submission.reply({ formErrors: [err.message] }), { status: 400, headers: { 'Set-Cookie': cookie } });
    throw err;
  }
  return redirect(`/public/chat/${params.code}#latest`, { headers: { 'Set-Cookie': cookie } });
}

export const headers: HeadersFunction = () => ({ 'Cache-Control': 'no-store' });

export default function ChatPage() {
  const { page, online, offlineMessage, welcomeMessage, messages, started } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `chat-${started ? 'reply' : 'first'}`,
    lastResult,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <main id="main" className="auth contact-page">
      <div className="card stack">
        <header style={{ borderTop: `4px solid ${page.color}` }}>
          <h1>{page.heading}</h1>
          {page.subHeading ? <p className="muted">{page.subHeading}</p> : null}
          <p className="muted" data-testid="chat-status">
            {online ? `${page.teamName} is online` : offlineMessage}
          </p>
        </header>
        <ol className="stack" data-testid="chat-thread" aria-label="Conversation" style={{ listStyle: 'none', padding: 0 }}>
          {welcomeMessage ? <li className="muted">{welcomeMessage}</li> : null}
          {messages.map((m, i) => (
            <li
              key={m.id}
              id={i === messages.length - 1 ? 'latest' : undefined}
              data-from={m.from}
              style={{ textAlign: m.from === 'visitor' ? 'right' : 'left' }}
            >
              <small className="muted">
                {m.from === 'visitor' ? 'You' : m.author ?? page.teamName} · {formatTime(m.at)}
              </small>
              <p style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{m.text}</p>
              {m.attachments.map((f) => (
                <small key={f.url} className="muted">
                  <a href={f.url}>📎 {f.name}</a>
                </small>
              ))}
            </li>
          ))}
        </ol>
        {messages.at(-1)?.buttons?.length ? (
          // A chatbot's question: each answer is a submit button of its own form (no JavaScript needed).
          <Form method="post" reloadDocument className="row wrap" aria-label="Answers" data-testid="bot-buttons">
            {messages.at(-1)!.buttons!.map((label) => (
              <button key={label} type="submit" name="message" value={label} className="btn">
                {label}
              </button>
            ))}
          </Form>
        ) : null}
        {started ? (
          <Link to="." reloadDocument className="btn">
            Check for replies
          </Link>
        ) : null}
        <Form method="post" reloadDocument {...getFormProps(form)} className="stack">
          {started ? null : (
            <>
              <Field label="Name" field={fields.name} autoComplete="name" />
              <Field label="Email" field={fields.email} type="email" autoComplete="email" />
            </>
          )}
          <TextareaField label="Message" field={fields.message} rows={4} maxLength={5000} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <button type="submit" className="btn btn-primary">
            Send
          </button>
        </Form>
      </div>
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.page.heading ?? 'Chat') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
