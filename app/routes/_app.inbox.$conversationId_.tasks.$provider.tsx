import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { getConversation } from '~/models/inbox/conversations.server';
import { AsanaProjectPicker, ClickupListPicker } from '~/components/integrations/task-pickers';
import { asanaPanelFor, asanaProjectPicker, createAsanaTaskFromConversation, linkAsanaTask } from '~/models/integrations/asana/asana.server';
import { clickupListPicker, clickupPanelFor, createClickupTaskFromConversation, linkClickupTask } from '~/models/integrations/clickup/clickup.server';
import { IntegrationError } from '~/models/integrations/http.server';
import { LinkExistsError } from '~/models/integrations/links.server';
import { AsanaTaskSchema, ClickupTaskSchema, TaskLinkSchema } from '~/models/integrations/task-schemas';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';
import { accountUrl, bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * /inbox/{id}/tasks/{asana|clickup}: create a task from the conversation or link an existing one (ADR 100), and the
 * panel's "Refresh status". perform_data_specific_action and the plan's integrations area, checked first.
 */
async function guard(request: Request, params: { conversationId?: string; provider?: string }) {
  const ctx = await requirePermission(request, 'perform_data_specific_action');
  await requireFeature(request, 'integrations/enabled', ctx);
  const provider: 'asana' | 'clickup' | null = params.provider === 'asana' || params.provider === 'clickup' ? params.provider : null;
  if (!provider) throw new Response('Not Found', { status: 404 });
  const id = parseRouteId(params.conversationId);
  const found = id === null ? undefined : await getConversation({ accountId: ctx.account.id, id });
  if (!found) throw new Response('Not Found', { status: 404 });
  return { ctx, found, id: found.conversation.id, provider };
}

const LABEL = { asana: 'Asana', clickup: 'ClickUp' } as const;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, found, id, provider } = await guard(request, params);
  // "Show projects/spaces/lists" come back as a GET with the form's fields: what was typed is shown again (ADR 118).
  const q = new URL(request.url).searchParams;
  const typed = (k: string) => q.get(k)?.slice(0, 10_000) ?? undefined;
  const base = {
    conversationId: id,
    label: LABEL[provider],
    typed: { name: typed('name') ?? found.conversation.subject ?? '', notes: typed('notes'), description: typed('description'), assignee: typed('assignee') },
  };
  if (provider === 'asana') {
    const [p, picker] = await Promise.all([asanaPanelFor({ accountId: ctx.account.id, conversationId: id }), asanaProjectPicker({ accountId: ctx.account.id, workspace: q.get('workspace') })]);
    if (!p.connected || !picker) throw new Response('Asana is not connected', { status: 404 });
    const project = q.get('project') ?? (q.has('workspace') ? '' : p.defaultProject);
    const listed = picker.projects.some((x) => x.gid === project);
    return {
      ...base,
      provider,
      asana: picker,
      clickup: null,
      defaults: { workspace: picker.workspace, project: listed ? project : '', projectId: q.get('projectId') ?? (listed ? '' : project) },
      reopenOnClose: q.has('name') ? q.get('reopenOnClose') === 'on' : p.reopenOnClose,
    };
  }
  const [p, picker] = await Promise.all([
    clickupPanelFor({ accountId: ctx.account.id, conversationId: id }),
    clickupListPicker({ accountId: ctx.account.id, team: q.get('team'), space: q.get('space') }),
  ]);
  if (!p.connected || !picker) throw new Response('ClickUp is not connected', { status: 404 });
  const list = q.get('list') ?? p.defaultList;
  const listed = picker.lists.some((l) => l.id === list);
  return {
    ...base,
    provider,
    asana: null,
    clickup: picker,
    defaults: { team: picker.team, space: picker.space, list: listed ? list : '', listId: q.get('listId') ?? (listed || q.has('list') ? '' : list) },
    reopenOnClose: q.has('name') ? q.get('reopenOnClose') === 'on' : p.reopenOnClose,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, id, provider } = await guard(request, params);
  const back = `/inbox/${id}`;
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  const who = { accountId: ctx.account.id, userId: ctx.user.id, conversationId: id, publicBase: bareUrl(request, '').replace(/\/$/, '') };
  const conversationUrl = accountUrl(request, ctx.account.domain, back);
  const refused = (err: unknown, submission: { reply: (o: { formErrors: string[] }) => unknown }) => {
    if (err instanceof IntegrationError || err instanceof LinkExistsError) return data({ intent, result: submission.reply({ formErrors: [err.message] }) }, { status: 400 });
    throw err;
  };
  if (intent === 'create' && provider === 'asana') {
    const submission = parseWithZod(formData, { schema: AsanaTaskSchema });
    if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
    const v = submission.value;
    try {
      const task = await createAsanaTaskFromConversation({ ...who, name: v.name, notes: v.notes, workspaceGid: v.workspace, projectGid: v.projectId || v.project, assignee: v.assignee, dueOn: v.dueOn, reopenOnClose: v.reopenOnClose === 'on', conversationUrl });
      return redirectWithToast(back, `Asana Task ${task.gid} Created`);
    } catch (err) {
      return refused(err, submission);
    }
  }
  if (intent === 'create' && provider === 'clickup') {
    const submission = parseWithZod(formData, { schema: ClickupTaskSchema });
    if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
    const v = submission.value;
    try {
      const task = await createClickupTaskFromConversation({ ...who, listId: v.listId || v.list, name: v.name, description: v.description, assignee: v.assignee ? Number(v.assignee) : null, reopenOnClose: v.reopenOnClose === 'on', conversationUrl });
      return redirectWithToast(back, `ClickUp Task ${task.id} Created`);
    } catch (err) {
      return refused(err, submission);
    }
  }
  if (intent === 'link') {
    const submission = parseWithZod(formData, { schema: TaskLinkSchema });
    if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
    const opts = { ...who, ref: submission.value.ref, reopenOnClose: submission.value.reopenOnClose === 'on' };
    try {
      const name = provider === 'asana' ? (await linkAsanaTask(opts)).name : (await linkClickupTask(opts)).name;
      return redirectWithToast(back, `${LABEL[provider]} Task Linked: ${name.slice(0, 80)}`);
    } catch (err) {
      return refused(err, submission);
    }
  }
  if (intent === 'refresh') {
    const p = provider === 'asana' ? await asanaPanelFor({ accountId: ctx.account.id, conversationId: id, refresh: true }) : await clickupPanelFor({ accountId: ctx.account.id, conversationId: id, refresh: true });
    if (p.connected && p.error) return redirectWithToast(back, { type: 'error', text: p.error });
    return redirectWithToast(back, 'Task Status Refreshed');
  }
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = { breadcrumb: 'Tasks' };

type CreateFields = { name: string; notes: string; description: string; workspace: string; project: string; projectId: string; team: string; space: string; list: string; listId: string; assignee: string; dueOn: string; reopenOnClose: string };

export default function ConversationTask() {
  const d = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const resultFor = (intent: string) => (actionData && 'intent' in actionData && actionData.intent === intent ? actionData.result : undefined);
  const reopen = d.reopenOnClose ? 'on' : undefined;
  // A new pick (another workspace, space...) is a new form, so its defaults apply with JavaScript on too.
  const pickKey = Object.values(d.defaults).join('-');
  const [createForm, c] = useForm<CreateFields>({
    id: `${d.provider}-create-${pickKey}`,
    lastResult: resultFor('create'),
    shouldValidate: 'onSubmit',
    defaultValue: { ...d.defaults, name: d.typed.name, notes: d.typed.notes, description: d.typed.description, assignee: d.typed.assignee, reopenOnClose: reopen },
  });
  const [linkForm, l] = useForm<{ ref: string; reopenOnClose: string }>({ id: `${d.provider}-link`, lastResult: resultFor('link'), shouldValidate: 'onSubmit', defaultValue: { reopenOnClose: reopen } });
  const reopenLabel = `Reopen this conversation when the task ${d.provider === 'asana' ? 'is completed' : 'closes'}`;
  return (
    <section className="settings-page">
      <header>
        <h1>{d.label} task</h1>
      </header>
      <p>
        <Link to={`/inbox/${d.conversationId}`}>Back to conversation #{d.conversationId}</Link>
      </p>
      <div className="card">
        <h2>Create a task</h2>
        <Form method="post" {...getFormProps(createForm)}>
          {d.asana ? <AsanaProjectPicker picker={d.asana} fields={c} /> : null}
          {d.clickup ? <ClickupListPicker picker={d.clickup} fields={c} /> : null}
        <Field label="Name" field={c.name} />
          <TextareaField label="Description" field={d.provider === 'asana' ? c.notes : c.description} rows={5} />
          <Field label="Assignee" field={c.assignee} hint={d.provider === 'asana' ? '"me", an email address or an Asana user ID (optional)' : 'A ClickUp user ID (optional)'} />
          {d.provider === 'asana' ? <Field label="Due date" field={c.dueOn} type="date" hint="Optional" /> : null}
          <CheckboxField label={reopenLabel} field={c.reopenOnClose} />
          <ErrorList errors={createForm.errors} />
          <button type="submit" className="btn primary" name="intent" value="create">
            Create task
          </button>
        </Form>
      </div>
      <div className="card">
        <h2>Link an existing task</h2>
        <Form method="post" {...getFormProps(linkForm)}>
          <Field label="Task" field={l.ref} hint={`The task's ID or its ${d.label} address`} />
          <CheckboxField label={reopenLabel} field={l.reopenOnClose} />
          <ErrorList errors={linkForm.errors} />
          <button type="submit" className="btn" name="intent" value="link">
            Link task
          </button>
        </Form>
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data ? `${data.label} task` : 'Task', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
