import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Field } from '~/components/ui/forms';
import { createChatbot, listChatbots, listWebInboxOptions } from '~/models/chatbots/chatbots.server';
import { CreateChatbotSchema } from '~/models/chatbots/flow.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Everyone with the messenger sees the bots and their figures; manage_chat_messenger_and_pages builds them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  const [bots, inboxes] = await Promise.all([listChatbots({ accountId: ctx.account.id }), listWebInboxOptions({ accountId: ctx.account.id })]);
  return { bots, inboxes, locked: !can(ctx, 'manage_chat_messenger_and_pages') };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  if (!can(ctx, 'manage_chat_messenger_and_pages')) throw new Response(ROLE_LOCKED_MESSAGE, { status: 403 });
  const form = await request.formData();
  if (form.get('intent') !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(form, { schema: CreateChatbotSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const bot = await createChatbot({ accountId: ctx.account.id, actorId: ctx.user.id, name: submission.value.name });
  return redirectWithToast(`/chatbots/${bot.id}`, 'Chatbot created');
}

export default function ChatbotList() {
  const { bots, inboxes, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: 'create-bot', lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  const inboxName = new Map(inboxes.map((i) => [i.id, i.name]));
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Chatbots</h1>
        <span className="muted">{bots.length}</span>
      </header>
      <p className="muted">
        Bots greet visitors in the messenger and on the chat page, answer from the knowledge base, collect details and hand over to the team.{' '}
        <Link to="/help-center/chatbots">Learn more</Link>
      </p>
      {locked ? null : (
        <Form method="post" {...getFormProps(form)} className="card row wrap" aria-label="New chatbot">
          <Field label="Name of a new bot" field={fields.name} maxLength={60} />
          <button type="submit" name="intent" value="create" className="btn btn-primary">
            Create Chatbot
          </button>
        </Form>
      )}
      {bots.length === 0 ? (
        <p className="card muted" data-testid="chatbots-empty">
          No chatbots yet.
        </p>
      ) : (
        <div style={{ overflowX: 'auto' }}>
          <table className="table" data-testid="chatbots-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Inboxes</th>
                <th scope="col">Priority</th>
                <th scope="col">Started</th>
                <th scope="col">Completed</th>
                <th scope="col">Handed over</th>
                <th scope="col">Resolved without an agent</th>
              </tr>
            </thead>
            <tbody>
              {bots.map((b) => (
                <tr key={b.id} data-testid={`bot-${b.name}`}>
                  <td>
                    <Link to={`/chatbots/${b.id}`}>{b.name}</Link>
                  </td>
                  <td>{b.enabled ? 'On' : 'Off'}</td>
                  <td>{b.inboxIds.map((id) => inboxName.get(id)).filter(Boolean).join(', ') || '—'}</td>
                  <td>{b.priority}</td>
                  <td data-testid="fig-started">{b.figures.started}</td>
                  <td data-testid="fig-completed">{b.figures.completed}</td>
                  <td data-testid="fig-handed-over">{b.figures.handedOver}</td>
                  <td data-testid="fig-resolved">{b.figures.resolvedWithoutAgent}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Chatbots') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
