import { getCollectionProps, getFormProps, getSelectProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useFetcher, useLoaderData, type ShouldRevalidateFunction } from '@remix-run/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { InboxBusinessHoursForm } from '~/components/automation/inbox-business-hours';
import { ChannelHealthPanel } from '~/components/channel-health';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { AUTO_RESOLVE_MAX_DAYS, SMS_DEFAULT_PER_SECOND, SMS_MAX_PER_SECOND, CUSTOM_PHONE_INPUT_MAX, SMS_FIELD_MAX, SMS_MESSAGES, SMS_NAME_MAX, SMS_PROVIDER_LABELS, SMS_PROVIDERS, THREADING_INTERVALS, type SmsProvider } from '~/models/channels/sms-constants';
import { SmsCreateSchema, smsUpdateSchema, TwilioCredentialsSchema } from '~/models/channels/sms-schemas';
import {
  createSmsInbox,
  deleteSmsInbox,
  describeSmsInbox,
  getSmsInbox,
  checkSmsSettings,
  isSharedSecret,
  newSharedSecret,
  smsSettingsAfter,
  smsSettingsOfNew,
  SmsInputError,
  updateSmsInbox,
} from '~/models/channels/sms.server';
import { businessHoursOptions, submitInboxBusinessHours } from '~/models/automation/business-hours.server';
import { fetchTwilioNumbers, TwilioError } from '~/models/channels/twilio.server';
import { InboxNameTakenError } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { listTeamCandidates } from '~/models/teams/teams.server';
import { pageTitle } from '~/utils/format';
import { describeChannelHealth, recordChannelSuccess } from '~/models/channels/health.server';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission } from '~/utils/session.server';
import { bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/sms';
const INTERVAL_OPTIONS = THREADING_INTERVALS.map((t) => ({ value: String(t.value), label: t.label }));
const PROVIDER_OPTIONS = SMS_PROVIDERS.map((p) => ({ value: p, label: SMS_PROVIDER_LABELS[p] }));

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'channels/sms');
  const id = readEditorParam(params.inboxId);
  const inbox = id === 'new' ? null : await getSmsInbox({ accountId: ctx.account.id, id });
  if (inbox === undefined) throw new Response('Not Found', { status: 404 });
  const locked = !can(ctx, 'manage_sms');
  const users = await listTeamCandidates({ accountId: ctx.account.id });
  return {
    inbox: inbox ? describeSmsInbox(inbox) : null,
    users,
    // GET sms/sharedsecret: the custom gateway's secret, made now and kept by the form until it is created.
    sharedSecret: inbox || locked ? '' : newSharedSecret(),
    provider: new URL(request.url).searchParams.get('provider'),
    locked,
    health: inbox ? await describeChannelHealth({ accountId: ctx.account.id, inboxId: inbox.id, parts: ['sms'] }) : [],
    businessHoursId: inbox?.businessHoursId ?? null,
    businessHours: inbox ? await businessHoursOptions({ accountId: ctx.account.id }) : [],
    prefs: { dateFormat: ctx.user.dateFormat, timeFormat: ctx.user.timeFormat, timezone: ctx.user.timezone },
  };
}

/** Every field the form may hold, whichever provider is chosen. */
type SmsFormShape = {
  name: string;
  provider: SmsProvider;
  phoneNumber: string;
  authToken: string;
  sid: string;
  accountSID: string;
  webhookAuthToken: string;
  webhookUrl: string;
  threadingInterval: number;
  autoResolvedDays: number;
  assigneeIds: number[];
  messagesPerSecond: number;
};

type ActionData = {
  intent: 'save' | 'fetch-numbers' | 'provider' | 'hours';
  result: SubmissionResult<string[]>;
  numbers?: { phoneNumber: string; friendlyName: string }[];
};

/**
 * With JavaScript, Create/Update waits for a valid form (section 4). The server judges the draft with the same
 * schema it saves with (ADR 027: no zod in the browser) and answers only whether it would pass; nothing is saved.
 */
function judgeDraft(formData: FormData, provider: SmsProvider | null) {
  const schema = provider ? smsUpdateSchema(provider) : SmsCreateSchema;
  return data({ intent: 'judge' as const, valid: parseWithZod(formData, { schema }).status === 'success' });
}

/** Judging the draft and fetching numbers change nothing: the page's data is not loaded again for them. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) => {
  const intent = formData?.get('intent');
  return intent === 'judge' || intent === 'fetch-numbers' ? false : defaultShouldRevalidate;
};

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_sms');
  await requireFeature(request, 'channels/sms', ctx);
  const id = readEditorParam(params.inboxId);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  const notFound = () => new Response('Not Found', { status: 404 });
  const reply = (body: ActionData, status = 400) => data(body, { status });

  if (id !== 'new') {
    const inbox = await getSmsInbox({ accountId: ctx.account.id, id });
    if (!inbox) throw notFound();
    if (intent === 'delete') {
      await deleteSmsInbox({ ...who, id });
      return redirectWithToast(LIST, { type: 'info', text: 'Inbox Deleted' });
    }
    if (intent === 'judge') return judgeDraft(formData, describeSmsInbox(inbox).provider);
    if (intent === 'hours') {
      const hours = await submitInboxBusinessHours({ ...who, inboxId: id, channelType: 'sms', formData });
      if (hours.status === 'missing') throw notFound();
      if (hours.status === 'invalid') return reply({ intent: 'hours', result: hours.reply });
      return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Inbox Updated' });
    }
    if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
    // The provider, the number and the credentials are fixed once created: only these fields are read.
    const submission = parseWithZod(formData, { schema: smsUpdateSchema(describeSmsInbox(inbox).provider) });
    // The Auth Token typed for signatures is never sent back into the page.
    const hideFields = ['webhookAuthToken'];
    if (submission.status !== 'success') return reply({ intent: 'save', result: submission.reply({ hideFields }) });
    // The provider is asked first (ADR 039): what it refuses is not saved, and the form says why.
    const problem = await checkSmsSettings({ settings: smsSettingsAfter(inbox, submission.value), secret: inbox.secret, inboxId: id });
    if (problem) {
      // The credentials and the number are fixed on this form: their problem is the form's.
      const onForm = problem.field === 'webhookUrl' || problem.field === 'webhookAuthToken';
      return reply({
        intent: 'save',
        result: submission.reply(onForm ? { fieldErrors: { [problem.field]: [problem.message] }, hideFields } : { formErrors: [problem.message], hideFields }),
      });
    }
    try {
      if (!(await updateSmsInbox({ ...who, id, input: submission.value }))) throw notFound();
    } catch (err) {
      if (err instanceof SmsInputError) return reply({ intent: 'save', result: submission.reply({ fieldErrors: { [err.field]: [err.message] }, hideFields }) });
      if (err instanceof InboxNameTakenError)
        return reply({ intent: 'save', result: submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] }, hideFields }) });
      throw err;
    }
    await recordChannelSuccess({ accountId: ctx.account.id, inboxId: id, part: 'sms' });
    return redirectWithToast(LIST, { type: 'info', text: 'Inbox Updated' });
  }

  if (intent === 'judge') return judgeDraft(formData, null);
  const fetchedNumbers = formData
    .getAll('fetchedNumbers')
    .map(String)
    .filter((n) => /^\+\d{4,14}$/.test(n));
  // Choosing the provider without JavaScript: the form comes back with that provider's fields and the draft kept.
  if (intent === 'provider') {
    const submission = parseWithZod(formData, { schema: SmsCreateSchema });
    return reply({ intent: 'provider', result: { ...submission.reply(), error: {} } }, 200);
  }
  // GET sms/phonenumbers, as a form step: the Twilio credentials typed so far list the account's numbers.
  if (intent === 'fetch-numbers') {
    const creds = parseWithZod(formData, { schema: TwilioCredentialsSchema });
    if (creds.status !== 'success') return reply({ intent: 'fetch-numbers', result: creds.reply() });
    try {
      const numbers = await fetchTwilioNumbers(creds.value);
      if (numbers.length === 0)
        return reply({ intent: 'fetch-numbers', result: creds.reply({ formErrors: ['This Twilio account has no phone number that can send SMS'] }) });
      return reply({ intent: 'fetch-numbers', result: creds.reply(), numbers }, 200);
    } catch (err) {
      if (err instanceof TwilioError) return reply({ intent: 'fetch-numbers', result: creds.reply({ formErrors: [err.message] }) });
      throw err;
    }
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: SmsCreateSchema });
  const numbers = fetchedNumbers.map((n) => ({ phoneNumber: n, friendlyName: n }));
  if (submission.status !== 'success') return reply({ intent: 'save', result: submission.reply(), numbers });
  // The custom gateway's token is the secret Parley generated for the form, never one typed in.
  if (submission.value.provider === 'custom_sms' && !isSharedSecret(submission.value.authToken)) {
    return reply({ intent: 'save', result: submission.reply({ fieldErrors: { authToken: [SMS_MESSAGES.authTokenRequired] } }), numbers });
  }
  const publicBase = bareUrl(request, '');
  const problem = await checkSmsSettings({ settings: smsSettingsOfNew(submission.value, publicBase), secret: submission.value.provider === 'custom_sms' ? submission.value.authToken : null });
  // The account's Auth Token for signatures is not sent back into the page (the draft's other fields are, to fix and resend).
  if (problem) return reply({ intent: 'save', result: submission.reply({ fieldErrors: { [problem.field]: [problem.message] }, hideFields: ['webhookAuthToken'] }), numbers });
  try {
    const created = await createSmsInbox({ ...who, input: submission.value, publicBase });
    await recordChannelSuccess({ accountId: ctx.account.id, inboxId: created.id, part: 'sms' });
  } catch (err) {
    if (err instanceof SmsInputError) return reply({ intent: 'save', result: submission.reply({ fieldErrors: { [err.field]: [err.message] } }), numbers });
    if (err instanceof InboxNameTakenError)
      return reply({ intent: 'save', result: submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] } }), numbers });
    throw err;
  }
  return redirectWithToast(LIST, 'Inbox Created');
}

export const handle = {
  breadcrumb: (loaderData: { inbox: { name: string } | null } | undefined) => (loaderData ? loaderData.inbox?.name ?? 'Create Inbox' : null),
};

export default function SmsInboxPage() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { inbox } = loaderData;
  return (
    <>
      <SmsInboxEditor key={inbox?.id ?? 'new'} {...loaderData} />
      {inbox && loaderData.health.length > 0 ? <ChannelHealthPanel rows={loaderData.health} prefs={loaderData.prefs} /> : null}
      {inbox ? (
        <InboxBusinessHoursForm
          key={inbox.id}
          inboxId={inbox.id}
          current={loaderData.businessHoursId}
          options={loaderData.businessHours}
          locked={loaderData.locked}
          cancelTo={LIST}
          lastResult={actionData?.intent === 'hours' ? actionData.result : undefined}
        />
      ) : null}
    </>
  );
}

function SmsInboxEditor({ inbox, users, sharedSecret, provider: providerParam, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  // The "judge" answers go to their fetcher only, never to the page's action data.
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const editing = Boolean(inbox);
  const [form, fields] = useForm<SmsFormShape>({
    id: `sms-${inbox?.id ?? 'new'}`,
    lastResult: actionData?.intent === 'hours' ? undefined : actionData?.result,
    defaultValue: inbox
      ? {
          name: inbox.name,
          provider: inbox.provider,
          webhookUrl: inbox.webhookUrl,
          threadingInterval: String(inbox.threadingInterval),
          autoResolvedDays: String(inbox.autoResolvedDays),
          messagesPerSecond: inbox.messagesPerSecond ? String(inbox.messagesPerSecond) : '',
          assigneeIds: inbox.assigneeIds.map(String),
        }
      : { provider: SMS_PROVIDERS.includes(providerParam as SmsProvider) ? providerParam : '', autoResolvedDays: '0', authToken: '' },
    // The server judges every submission (ADR 027); the Create button's readiness is asked of it below.
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const provider = (inbox?.provider ?? fields.provider.value ?? '') as SmsProvider | '';
  // With JavaScript the Twilio numbers come by themselves once the credentials are typed (section 4).
  const numbersFetcher = useFetcher<typeof action>();
  const fetched = numbersFetcher.data?.intent === 'fetch-numbers' ? numbersFetcher.data : undefined;
  const numbers = fetched?.numbers ?? actionData?.numbers ?? [];
  const fetchErrors =
    fetched && !fetched.numbers ? [...new Set(Object.values(fetched.result.error ?? {}).flat())].filter((e): e is string => typeof e === 'string') : [];
  const formRef = useRef<HTMLFormElement>(null);
  // Create/Update is disabled while the form is invalid (section 4) — only with JavaScript: without it the button
  // stays usable (the server's page has it enabled) and the server answers with the messages. With JavaScript the
  // server judges the draft (intent "judge"): a saved inbox starts valid, a new one not, until the first answer.
  const judgeFetcher = useFetcher<{ intent: 'judge'; valid: boolean }>();
  const [valid, setValid] = useState(true);
  useEffect(() => setValid(editing), [editing]);
  useEffect(() => {
    if (judgeFetcher.data?.intent === 'judge') setValid(judgeFetcher.data.valid);
  }, [judgeFetcher.data]);
  const judgeTimer = useRef<ReturnType<typeof setTimeout>>();
  const judge = useCallback(() => {
    clearTimeout(judgeTimer.current);
    judgeTimer.current = setTimeout(() => {
      if (!formRef.current) return;
      const draft = new FormData(formRef.current);
      draft.set('intent', 'judge');
      judgeFetcher.submit(draft, { method: 'post' });
    }, 200);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the fetcher's submit is stable
  }, []);
  useEffect(judge, [judge, provider, numbers.length]);
  useEffect(() => () => clearTimeout(judgeTimer.current), []);
  const lastCredentials = useRef('');
  const fetchTimer = useRef<ReturnType<typeof setTimeout>>();
  const fetchNumbersSoon = () => {
    if (editing || provider !== 'twilio' || !formRef.current) return;
    const draft = new FormData(formRef.current);
    const credentials = ['accountSID', 'sid', 'authToken'].map((k) => String(draft.get(k) ?? '').trim());
    if (credentials.some((c) => !c) || credentials.join('\n') === lastCredentials.current) return;
    lastCredentials.current = credentials.join('\n');
    clearTimeout(fetchTimer.current);
    fetchTimer.current = setTimeout(() => {
      draft.set('intent', 'fetch-numbers');
      numbersFetcher.submit(draft, { method: 'post' });
    }, 500);
  };
  // The custom gateway's secret: the one this form was given, kept through every re-render of the draft.
  const secret =
    typeof fields.authToken.initialValue === 'string' && provider === 'custom_sms' && fields.authToken.initialValue
      ? fields.authToken.initialValue
      : sharedSecret;
  const assigneeErrors = [...new Set(Object.values(fields.assigneeIds.allErrors).flat())];
  const assignees = getCollectionProps(fields.assigneeIds, { type: 'checkbox', options: users.map((u) => String(u.id)), ariaAttributes: true });
  const { key: providerKey, ...providerProps } = getSelectProps(fields.provider, { ariaAttributes: true });
  const { key: phoneKey, ...phoneSelectProps } = getSelectProps(fields.phoneNumber, { ariaAttributes: true });

  return (
    <SettingsPage
      title={inbox ? 'Edit SMS Inbox' : 'Create SMS Inbox'}
      subHeader="Texts to this number become conversations; replies leave by SMS."
      learnMore="/help-center"
      locked={locked}
      actions={inbox ? <DeleteConfirm id={`sms-${inbox.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form
        method="post"
        {...getFormProps(form)}
        ref={formRef}
        onInput={() => {
          judge();
          fetchNumbersSoon();
        }}
      >
        {/* The first submit button answers the Enter key: saving, not fetching numbers. */}
        <button type="submit" name="intent" value="save" hidden tabIndex={-1} aria-hidden disabled={locked} />
        <fieldset disabled={locked} className="stack">
          <Field label="Inbox Name" field={fields.name} autoComplete="off" maxLength={SMS_NAME_MAX} />
          <div className="field">
            <label htmlFor={fields.provider.id}>Provider</label>
            <div className="row">
              <select key={providerKey} {...providerProps} disabled={editing}>
                <option value="">Select a provider</option>
                {PROVIDER_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
              {editing ? null : (
                <noscript>
                  <button type="submit" name="intent" value="provider" className="btn">
                    Choose provider
                  </button>
                </noscript>
              )}
            </div>
            {editing ? <small className="muted">The provider cannot change once the inbox exists.</small> : null}
            <ErrorList id={fields.provider.errorId} errors={fields.provider.errors} />
          </div>

          {editing && inbox ? (
            <div className="stack" data-testid="fixed-fields">
              <div className="field">
                <label htmlFor="sms-phone-fixed">Phone Number</label>
                <input id="sms-phone-fixed" value={inbox.phoneNumber} disabled readOnly />
              </div>
              {inbox.provider === 'twilio' ? (
                <>
                  <div className="field">
                    <label htmlFor="sms-account-sid-fixed">Account SID</label>
                    <input id="sms-account-sid-fixed" value={inbox.accountSID} disabled readOnly />
                  </div>
                  <div className="field">
                    <label htmlFor="sms-sid-fixed">Authentication Key</label>
                    <input id="sms-sid-fixed" value={inbox.sid} disabled readOnly />
                  </div>
                </>
              ) : null}
              <div className="field">
                <label htmlFor="sms-token-fixed">Auth Token</label>
                <input id="sms-token-fixed" value={inbox.authTokenHint} disabled readOnly />
              </div>
              {inbox.usesApiKey ? (
                <Field
                  label="Webhook Auth Token"
                  field={fields.webhookAuthToken}
                  type="password"
                  autoComplete="off"
                  maxLength={SMS_FIELD_MAX}
                  placeholder={inbox.hasWebhookAuthToken ? 'Saved: leave empty to keep it' : ''}
                  hint="Your Twilio account's Auth Token, which Twilio signs its webhooks with: without it, Parley refuses every text Twilio posts. Twilio is asked to confirm it when you save."
                />
              ) : null}
            </div>
          ) : null}

          {!editing && provider === 'twilio' ? (
            <fieldset className="stack" data-testid="twilio-fields">
              <legend>Twilio</legend>
              <Field label="Account SID" field={fields.accountSID} autoComplete="off" maxLength={SMS_FIELD_MAX} />
              <Field label="Authentication Key" field={fields.sid} autoComplete="off" maxLength={SMS_FIELD_MAX} hint="Your Account SID, or an API key SID" />
              <Field
                label="Auth Token"
                field={fields.authToken}
                type="password"
                autoComplete="off"
                maxLength={SMS_FIELD_MAX}
                hint="With your Account SID: its Auth Token. With an API key: the key's secret."
              />
              <Field
                label="Webhook Auth Token"
                field={fields.webhookAuthToken}
                type="password"
                autoComplete="off"
                maxLength={SMS_FIELD_MAX}
                hint="Only with an API key (SK…): your account's Auth Token, which Twilio signs its webhooks with. Parley uses it only to check them."
              />
              <div>
                <button type="submit" name="intent" value="fetch-numbers" className="btn">
                  Fetch numbers
                </button>
                {numbersFetcher.state !== 'idle' ? <span className="muted"> Fetching the numbers…</span> : null}
                <ErrorList id="sms-fetch-errors" errors={fetchErrors} />
              </div>
              {numbers.length > 0 ? (
                <div className="field">
                  <label htmlFor={fields.phoneNumber.id}>Phone Number</label>
                  <select key={phoneKey} {...phoneSelectProps}>
                    <option value="">Select a number</option>
                    {numbers.map((n) => (
                      <option key={n.phoneNumber} value={n.phoneNumber}>
                        {n.friendlyName === n.phoneNumber ? n.phoneNumber : `${n.phoneNumber} (${n.friendlyName})`}
                      </option>
                    ))}
                  </select>
                  {numbers.map((n) => (
                    <input key={n.phoneNumber} type="hidden" name="fetchedNumbers" value={n.phoneNumber} />
                  ))}
                  <ErrorList id={fields.phoneNumber.errorId} errors={fields.phoneNumber.errors} />
                </div>
              ) : (
                <>
                  <p className="muted">Fetch the numbers of your Twilio account to choose one.</p>
                  <ErrorList id={fields.phoneNumber.errorId} errors={fields.phoneNumber.errors} />
                </>
              )}
            </fieldset>
          ) : null}

          {!editing && provider === 'custom_sms' ? (
            <fieldset className="stack" data-testid="custom-fields">
              <legend>Custom SMS</legend>
              <Field
                label="Phone Number"
                field={fields.phoneNumber}
                type="tel"
                autoComplete="off"
                maxLength={CUSTOM_PHONE_INPUT_MAX}
                placeholder="+15551234567"
              />
              <div className="field">
                <label htmlFor="sms-shared-secret">Auth Token</label>
                <input id="sms-shared-secret" value={secret} disabled readOnly />
                <input type="hidden" name={fields.authToken.name} value={secret} />
                <small className="muted">The shared secret your gateway signs its requests with (see the custom SMS format).</small>
                <ErrorList id={fields.authToken.errorId} errors={fields.authToken.errors} />
              </div>
            </fieldset>
          ) : null}

          {provider === 'custom_sms' ? (
            <Field
              label="Webhook URL"
              field={fields.webhookUrl}
              type="url"
              autoComplete="off"
              maxLength={SMS_FIELD_MAX}
              placeholder="https://sms-gateway.example.com/parley"
            />
          ) : null}

          <SelectField label="Threading Interval" field={fields.threadingInterval} options={INTERVAL_OPTIONS} placeholder="Select an interval" />
          <Field
            label="Campaign texts per second"
            field={fields.messagesPerSecond}
            type="number"
            min={1}
            max={SMS_MAX_PER_SECOND}
            hint={`SMS campaigns through this inbox send at most this many texts a second; empty for the provider's usual rate (Twilio ${SMS_DEFAULT_PER_SECOND.twilio}, your gateway ${SMS_DEFAULT_PER_SECOND.custom_sms}).`}
          />
          <Field
            label="Auto-resolve after (days)"
            field={fields.autoResolvedDays}
            type="number"
            min={0}
            max={AUTO_RESOLVE_MAX_DAYS}
            hint="Conversations without a message for this many days are resolved; 0 disables."
          />
          <fieldset aria-describedby={fields.assigneeIds.errorId} data-testid="assignees">
            <legend>Users</legend>
            <p className="muted">New conversations are assigned to the one of them with the fewest open conversations in this inbox.</p>
            <div className="perm-grid">
              {users.map((u, i) => {
                const { key, ...props } = assignees[i];
                return (
                  <label key={key} className="check">
                    <input {...props} />
                    <span>
                      {`${u.firstName} ${u.lastName}`.trim()} <small className="muted">{u.email}</small>
                    </span>
                  </label>
                );
              })}
            </div>
            <ErrorList id={fields.assigneeIds.errorId} errors={assigneeErrors} />
          </fieldset>
        </fieldset>
        {inbox && !locked ? (
          <div className="stack" data-testid="webhook-urls">
            <p className="muted">
              {inbox.provider === 'twilio'
                ? 'In Twilio, set the number\'s "A message comes in" webhook (HTTP POST) to:'
                : 'Your gateway posts incoming messages and delivery reports to:'}
            </p>
            <code>{inbox.urls.inbound}</code>
          </div>
        ) : null}
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={inbox ? 'Update' : 'Create'} intent="save" locked={locked} disabled={!valid} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.inbox?.name ?? 'Create Inbox', 'SMS', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
