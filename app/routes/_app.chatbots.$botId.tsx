import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import {
  chatbotFigures,
  deleteChatbot,
  EMPTY_FIGURES,
  getChatbot,
  listWebInboxOptions,
  saveChatbotFlow,
  updateChatbotSettings,
  withStepAdded,
  withStepEdited,
  withStepMoved,
  withStepRemoved,
} from '~/models/chatbots/chatbots.server';
import { FlowDiagram } from '~/components/chatbots/flow-diagram';
import { flowDiagram } from '~/models/chatbots/diagram.server';
import { COLLECT_FIELDS, MAX_CHOICES, STEP_LABELS, STEP_TYPES, type ChatbotStep } from '~/models/chatbots/constants';
import { AddStepSchema, ChatbotFlowError, ChatbotSettingsSchema, StepFormSchema } from '~/models/chatbots/flow.server';
import { listAssigneeOptions, listTeamOptions } from '~/models/inbox/screens.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { listMeetingTypes } from '~/models/meetings/meetings.server';
import { parseRowId } from '~/utils/route-id';
import { can, requireFeature, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * The chatbot builder (ADR 075): the bot's settings (inboxes, priority, conditions) and its flow as a list of steps,
 * each with its branches. Every change is a form submission; the server checks the whole flow before saving it.
 */

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  const id = parseRowId(params.botId);
  const bot = id ? await getChatbot({ accountId: ctx.account.id, id }) : undefined;
  if (!bot) throw new Response('Not Found', { status: 404 });
  const accountId = ctx.account.id;
  const [inboxes, teams, users, figures, meetingTypes] = await Promise.all([
    listWebInboxOptions({ accountId }),
    listTeamOptions({ accountId }),
    listAssigneeOptions({ accountId }),
    chatbotFigures({ accountId, botIds: [bot.id] }),
    listMeetingTypes({ accountId }),
  ]);
  const meetings = meetingTypes.map((m) => ({ id: m.id, name: m.isDefault ? `${m.meetingName} (default)` : m.meetingName }));
  return { bot, inboxes, teams, users, meetings, figures: figures.get(bot.id) ?? EMPTY_FIGURES, diagram: flowDiagram(bot.steps), locked: !can(ctx, 'manage_chat_messenger_and_pages') };
}

type ActionResult = { form: 'settings' | 'flow'; stepId?: string; error?: string; reply?: SubmissionResult<string[]> };

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  if (!can(ctx, 'manage_chat_messenger_and_pages')) throw new Response(ROLE_LOCKED_MESSAGE, { status: 403 });
  const accountId = ctx.account.id;
  const id = parseRowId(params.botId);
  const bot = id ? await getChatbot({ accountId, id }) : undefined;
  if (!bot) throw new Response('Not Found', { status: 404 });
  const form = await request.formData();
  const intent = form.get('intent');
  const here = `/chatbots/${bot.id}`;

  if (intent === 'settings') {
    const submission = parseWithZod(form, { schema: ChatbotSettingsSchema });
    if (submission.status !== 'success') return data<ActionResult>({ form: 'settings', reply: submission.reply() }, { status: 400 });
    const { pageUrl, visitor, hours, ...rest } = submission.value;
    try {
      await updateChatbotSettings({ accountId, id: bot.id, ...rest, conditions: { pageUrl, visitor, hours } });
    } catch (err) {
      if (err instanceof ChatbotFlowError) return data<ActionResult>({ form: 'settings', reply: submission.reply({ formErrors: [err.message] }) }, { status: 400 });
      throw err;
    }
    return redirectWithToast(here, 'Chatbot saved');
  }
  if (intent === 'delete') {
    await deleteChatbot({ accountId, id: bot.id });
    return redirectWithToast('/chatbots', { type: 'info', text: 'Chatbot deleted' });
  }

  let steps: unknown;
  let stepId: string | undefined;
  if (intent === 'add-step') {
    const parsed = AddStepSchema.safeParse({ type: form.get('type') });
    if (!parsed.success) return data<ActionResult>({ form: 'flow', error: 'Choose a kind of step' }, { status: 400 });
    steps = withStepAdded(bot.steps, parsed.data.type);
  } else if (intent === 'save-step' || intent === 'delete-step' || intent === 'move-up' || intent === 'move-down') {
    const parsed = StepFormSchema.safeParse(Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === 'string' && v !== '')));
    if (!parsed.success) return data<ActionResult>({ form: 'flow', error: `The step could not be read: ${parsed.error.issues[0].message}` }, { status: 400 });
    const edited = parsed.data as Record<string, unknown> & { stepId: string };
    stepId = edited.stepId;
    if (!bot.steps.some((s) => s.id === stepId)) return data<ActionResult>({ form: 'flow', error: 'This step no longer exists. Reload the page.' }, { status: 400 });
    steps =
      intent === 'save-step'
        ? withStepEdited(bot.steps, edited)
        : intent === 'delete-step'
          ? withStepRemoved(bot.steps, edited.stepId)
          : withStepMoved(bot.steps, edited.stepId, intent === 'move-up' ? -1 : 1);
  } else {
    throw new Response('Unknown intent', { status: 400 });
  }
  try {
    await saveChatbotFlow({ accountId, id: bot.id, steps });
  } catch (err) {
    if (err instanceof ChatbotFlowError) return data<ActionResult>({ form: 'flow', stepId, error: err.message }, { status: 400 });
    throw err;
  }
  return redirectWithToast(`${here}${stepId && intent !== 'delete-step' ? `#${stepId}` : ''}`, 'Flow saved');
}

type Option = { id: number; name: string };

export default function ChatbotBuilder() {
  const { bot, inboxes, teams, users, meetings, figures, diagram, locked } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as ActionResult | undefined;
  const [form, fields] = useForm({
    id: `bot-settings-${bot.id}`,
    lastResult: actionData?.form === 'settings' ? actionData.reply : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
    defaultValue: {
      name: bot.name,
      enabled: bot.enabled ? 'on' : undefined,
      priority: String(bot.priority),
      pageUrl: bot.conditions.pageUrl,
      visitor: bot.conditions.visitor,
      hours: bot.conditions.hours,
    },
  });
  const stepName = (id: string) => {
    const i = bot.steps.findIndex((s) => s.id === id);
    return `${i + 1}. ${STEP_LABELS[bot.steps[i].type]}`;
  };
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>{bot.name}</h1>
        <span className="muted">{bot.enabled ? 'On' : 'Off'}</span>
        <div className="spacer" />
        <Link to="/chatbots" className="btn">
          All chatbots
        </Link>
      </header>
      <dl className="row wrap" aria-label="Figures" data-testid="bot-figures">
        <div className="card">
          <dt className="muted">Started</dt>
          <dd>{figures.started}</dd>
        </div>
        <div className="card">
          <dt className="muted">Completed</dt>
          <dd>{figures.completed}</dd>
        </div>
        <div className="card">
          <dt className="muted">Handed over</dt>
          <dd>{figures.handedOver}</dd>
        </div>
        <div className="card">
          <dt className="muted">Resolved without an agent</dt>
          <dd>{figures.resolvedWithoutAgent}</dd>
        </div>
      </dl>

      <Form method="post" {...getFormProps(form)} className="card stack" aria-labelledby="bot-settings-h">
        <h2 id="bot-settings-h">Where it runs</h2>
        <fieldset disabled={locked} className="stack">
          <Field label="Name" field={fields.name} maxLength={60} />
          <label className="check">
            <input type="checkbox" name="enabled" defaultChecked={bot.enabled} /> Switched on
          </label>
          <fieldset>
            <legend>Web inboxes</legend>
            {inboxes.length === 0 ? <p className="muted">No web inbox yet: add one in Settings → Chat Messenger.</p> : null}
            {inboxes.map((i) => (
              <label key={i.id} className="check">
                <input type="checkbox" name="inboxIds" value={i.id} defaultChecked={bot.inboxIds.includes(i.id)} /> {i.name}
              </label>
            ))}
          </fieldset>
          <Field label="Priority (higher first when several bots match)" field={fields.priority} type="number" min={0} max={100} />
          <Field label="Only on pages whose URL contains" field={fields.pageUrl} maxLength={300} placeholder="e.g. /pricing (empty: every page)" />
          <div className="field">
            <label htmlFor="bot-visitor">Visitors</label>
            <select id="bot-visitor" name="visitor" defaultValue={bot.conditions.visitor}>
              <option value="any">New and returning</option>
              <option value="new">New visitors only</option>
              <option value="returning">Returning visitors only</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="bot-hours">Business hours</label>
            <select id="bot-hours" name="hours" defaultValue={bot.conditions.hours}>
              <option value="any">Any time</option>
              <option value="open">Only within business hours</option>
              <option value="closed">Only outside business hours</option>
            </select>
          </div>
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row wrap">
            <button type="submit" name="intent" value="settings" className="btn btn-primary">
              Save
            </button>
          </div>
        </fieldset>
      </Form>

      <section className="stack" aria-labelledby="flow-h">
        <h2 id="flow-h">Flow</h2>
        <p className="muted">The bot starts at step 1 when a visitor writes for the first time. A step with no next step ends the bot&apos;s part.</p>
        {actionData?.form === 'flow' && actionData.error ? (
          <p className="field-error" role="alert" data-testid="flow-error">
            {actionData.error}
          </p>
        ) : null}
        {bot.steps.length > 1 ? (
          <details>
            <summary>Show the flow as a diagram</summary>
            <FlowDiagram diagram={diagram} />
          </details>
        ) : null}
        <ol className="stack" style={{ listStyle: 'none', padding: 0 }} data-testid="flow">
          {bot.steps.map((s, i) => (
            <li key={s.id} id={s.id} className="card stack" data-testid={`step-${i + 1}`}>
              <StepForm step={s} index={i} count={bot.steps.length} steps={bot.steps} stepName={stepName} teams={teams} users={users} meetings={meetings} locked={locked} />
            </li>
          ))}
        </ol>
        {locked ? null : (
          <Form method="post" className="card row wrap" aria-label="New step">
            <div className="field">
              <label htmlFor="new-step-type">Kind of step</label>
              <select id="new-step-type" name="type" defaultValue="message">
                {STEP_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {STEP_LABELS[t]}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" name="intent" value="add-step" className="btn">
              Add step
            </button>
          </Form>
        )}
      </section>
      {locked ? null : (
        <DeleteConfirm id={`bot-${bot.id}`} intent="delete" label="Delete chatbot" text={`Delete the chatbot ${bot.name}? Its figures go with it.`} />
      )}
    </section>
  );
}

function NextSelect({ name, label, value, steps, self, stepName }: { name: string; label: string; value: string | null; steps: ChatbotStep[]; self: string; stepName: (id: string) => string }) {
  const id = `${self}-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value ?? ''}>
        <option value="">End the bot&apos;s part</option>
        {steps
          .filter((s) => s.id !== self)
          .map((s) => (
            <option key={s.id} value={s.id}>
              Go to {stepName(s.id)}
            </option>
          ))}
      </select>
    </div>
  );
}

function StepForm(props: {
  step: ChatbotStep;
  index: number;
  count: number;
  steps: ChatbotStep[];
  stepName: (id: string) => string;
  teams: Option[];
  users: Option[];
  meetings: Option[];
  locked: boolean;
}) {
  const { step: s, steps, stepName } = props;
  const next = (name: string, label: string, value: string | null) => <NextSelect name={name} label={label} value={value} steps={steps} self={s.id} stepName={stepName} />;
  const text = (label: string, value: string) => (
    <div className="field">
      <label htmlFor={`${s.id}-text`}>{label}</label>
      <textarea id={`${s.id}-text`} name="text" rows={2} maxLength={1000} defaultValue={value} required />
    </div>
  );
  const rows = (kind: 'choice' | 'rule', items: { label: string; next: string | null }[]) =>
    Array.from({ length: MAX_CHOICES }, (_, i) => (
      <div key={i} className="row wrap">
        <div className="field">
          <label htmlFor={`${s.id}-c${i}`}>{kind === 'choice' ? `Button ${i + 1}` : `If the answer contains (${i + 1})`}</label>
          <input id={`${s.id}-c${i}`} name={`choice${i}Label`} defaultValue={items[i]?.label ?? ''} maxLength={kind === 'choice' ? 40 : 100} />
        </div>
        {next(`choice${i}Next`, 'then', items[i]?.next ?? null)}
      </div>
    ));
  return (
    <Form method="post" className="stack" aria-label={`Step ${props.index + 1}`}>
      <h3>{stepName(s.id)}</h3>
      <input type="hidden" name="stepId" value={s.id} />
      <fieldset disabled={props.locked} className="stack">
        {s.type === 'message' ? (
          <>
            {text('Message', s.text)}
            {next('next', 'Then', s.next)}
          </>
        ) : s.type === 'question' ? (
          <>
            {text('Question', s.text)}
            {rows('choice', s.choices)}
            {next('next', 'Any other answer', s.next)}
          </>
        ) : s.type === 'collect' ? (
          <>
            <div className="field">
              <label htmlFor={`${s.id}-field`}>Detail saved on the contact</label>
              <select id={`${s.id}-field`} name="field" defaultValue={s.field}>
                {COLLECT_FIELDS.map((f) => (
                  <option key={f} value={f}>
                    {f === 'email' ? 'Email' : f === 'name' ? 'Name' : 'Phone'}
                  </option>
                ))}
              </select>
            </div>
            {text('Prompt', s.text)}
            {next('next', 'Then', s.next)}
          </>
        ) : s.type === 'search' ? (
          <>
            {text('Prompt', s.text)}
            <p className="muted">The visitor&apos;s answer is searched in the messenger&apos;s help centre; up to three articles are offered.</p>
            {next('next', 'Then', s.next)}
          </>
        ) : s.type === 'branch' ? (
          <>
            <p className="muted">Tests the visitor&apos;s last answer.</p>
            {rows('rule', s.rules.map((r) => ({ label: r.contains, next: r.next })))}
            {next('next', 'Otherwise', s.next)}
          </>
        ) : s.type === 'hours' ? (
          <>
            <p className="muted">Open means inside the inbox&apos;s business hours with an agent online.</p>
            {next('open', 'When the team is online', s.open)}
            {next('closed', 'When the team is away', s.closed)}
          </>
        ) : s.type === 'handover' ? (
          <>
            {text('Message', s.text)}
            <div className="field">
              <label htmlFor={`${s.id}-team`}>Assign to team</label>
              <select id={`${s.id}-team`} name="teamId" defaultValue={s.teamId ?? ''}>
                <option value="">No team</option>
                {props.teams.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={`${s.id}-user`}>Assign to agent</label>
              <select id={`${s.id}-user`} name="userId" defaultValue={s.userId ?? ''}>
                <option value="">No agent</option>
                {props.users.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
              </select>
            </div>
          </>
        ) : s.type === 'meeting' ? (
          <>
            {text('Message', s.text)}
            <div className="field">
              <label htmlFor={`${s.id}-meeting`}>Meeting</label>
              <select id={`${s.id}-meeting`} name="meetingId" defaultValue={s.meetingId ?? ''}>
                <option value="">The default meeting</option>
                {props.meetings.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.name}
                  </option>
                ))}
              </select>
            </div>
            <p className="muted">The booking link follows the message; a booking made through it shows in the conversation.</p>
            {next('next', 'Then', s.next)}
          </>
        ) : (
          <>
            {text('Message', s.text)}
            <p className="muted">Then the conversation is resolved.</p>
          </>
        )}
        <div className="row wrap">
          <button type="submit" name="intent" value="save-step" className="btn btn-primary">
            Save step
          </button>
          {props.index > 0 ? (
            <button type="submit" name="intent" value="move-up" className="btn" formNoValidate>
              Move up
            </button>
          ) : null}
          {props.index < props.count - 1 ? (
            <button type="submit" name="intent" value="move-down" className="btn" formNoValidate>
              Move down
            </button>
          ) : null}
          <button type="submit" name="intent" value="delete-step" className="btn" formNoValidate>
            Remove step
          </button>
        </div>
      </fieldset>
    </Form>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.bot.name ?? 'Chatbot') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
