import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DesignPanels } from '~/components/surveys/design-step';
import { FieldErrors } from '~/components/surveys/fields';
import { SettingsFields, ShareStep, TargetFields } from '~/components/surveys/other-steps';
import { EmailScheduleFields, EmailTargetFields } from '~/components/surveys/email-steps';
import { emailSettingsSchema, RecipientListSchema, TIME_ZONES, type EmailSchedule } from '~/models/surveys/email-schemas';
import { getEmailSchedule, listRecipientLists, scheduleFormValues, updateEmailSchedule, storeRecipientList } from '~/models/surveys/email-surveys.server';
import { SurveyPreview } from '~/components/surveys/preview';
import { useLivePreview } from '~/components/surveys/live-preview';
import { readReply, useHydrated, type Reply } from '~/components/surveys/reply';
import { UnsavedChangesGuard } from '~/components/ui/unsaved-changes';
import { listEmailSenderOptions } from '~/models/surveys/senders.server';
import { listTagOptions } from '~/models/inbox/screens.server';
import { CHANNEL_LABELS, isStep, SURVEY_MESSAGES, STATUS_LABELS, STEP_LABELS, stepsOf, SUB_TYPE_LABELS, SURVEY_TOASTS, type EditorStep, type SurveyChannel } from '~/models/surveys/constants';
import { applyQuestionOp, mergeQuestion, PANELS, parseEditorIntent, targetStep, type Panel, type QuestionEdit } from '~/models/surveys/editor.server';
import { listFolders, SurveyInputError } from '~/models/surveys/folders.server';
import { removeSurveyLogo, uploadSurveyLogo } from '~/models/surveys/logo.server';
import { cutOffBounds, designStepSchema, ReorderSchema, settingsSchema, ShareSchema, targetSchema } from '~/models/surveys/schemas';
import { inAppSnippet, sendShareInstructions } from '~/models/surveys/share.server';
import { getSurvey, publicSurveyPath, publishSurvey, updateSurvey, type Survey } from '~/models/surveys/surveys.server';
import { reorderQuestions } from '~/models/surveys/questions.server';
import type { SurveyQuestion } from '~/models/surveys/types';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission, type AppContext } from '~/utils/session.server';
import { bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/** manage_surveys and the plan area customerSatisfactionSurveys, then the survey (in a folder the user sees). */
async function guard(request: Request, params: LoaderFunctionArgs['params']) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const id = parseRouteId(params.surveyId);
  if (id === null) throw new Response('Not Found', { status: 404 });
  const survey = await getSurvey({ accountId: ctx.account.id, id, viewer: viewerOf(ctx) });
  if (!survey) throw new Response('Not Found', { status: 404 });
  const step = params.step;
  // The channel in the address is the survey's own; a wrong one (or a step the channel has not) goes to the right page.
  if (params.type !== survey.channel) throw redirect(`/surveys/edit/${survey.id}/${survey.channel}/${isStep(step) && stepsOf(survey.channel).includes(step) ? step : 'design'}`);
  if (!isStep(step) || !stepsOf(survey.channel).includes(step)) throw new Response('Not Found', { status: 404 });
  return { ctx, survey, step };
}

const viewerOf = (ctx: AppContext) => ({ userId: ctx.user.id, isAdmin: ctx.isOrgAdmin });
const editorUrl = (survey: Pick<Survey, 'id' | 'channel'>, step: EditorStep, query: Record<string, string | null | undefined> = {}) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) p.set(k, v);
  const s = p.toString();
  return `/surveys/edit/${survey.id}/${survey.channel}/${step}${s ? `?${s}` : ''}`;
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, survey, step } = await guard(request, params);
  const url = new URL(request.url);
  const accountId = ctx.account.id;
  const selectedId = url.searchParams.get('q');
  const panel = url.searchParams.get('panel');
  const email = survey.channel === 'email';
  const [lists, schedule] = await Promise.all([
    email && step === 'target' ? listRecipientLists({ accountId, surveyId: survey.id }) : Promise.resolve([]),
    email && step === 'settings' ? getEmailSchedule({ accountId, surveyId: survey.id }) : Promise.resolve(null),
  ]);
  const [folders, tags, senders, snippet] = await Promise.all([
    step === 'settings' ? listFolders({ accountId, viewer: viewerOf(ctx) }) : Promise.resolve([]),
    step === 'target' && survey.channel === 'email' ? listTagOptions({ accountId }) : Promise.resolve([]),
    step === 'design' && survey.channel === 'email' ? listEmailSenderOptions({ accountId, host: url.host }) : Promise.resolve([]),
    step === 'share' && survey.channel === 'in-app' ? inAppSnippet({ accountId, uniqueId: survey.uniqueId, scriptUrl: bareUrl(request, '/public/widget.js') }) : Promise.resolve(null),
  ]);
  return {
    survey: {
      id: survey.id,
      name: survey.name,
      channel: survey.channel,
      subType: survey.subType,
      status: survey.status,
      design: survey.design,
      messages: survey.messages,
      questions: survey.questions,
      target: survey.target,
      folderId: survey.folderId,
      language: survey.language,
      allowPartialSubmission: survey.allowPartialSubmission,
      responseLimit: survey.responseLimit,
      cutOffDate: survey.cutOffDate,
      hasLogo: Boolean(survey.logoAttachmentId),
      updatedAt: survey.updatedAt,
    },
    step,
    selectedId: survey.questions.some((q) => q.id === selectedId) ? selectedId : null,
    panel: (PANELS as readonly string[]).includes(panel ?? '') ? (panel as Panel) : 'components',
    logoUrl: survey.logoAttachmentId ? `/survey/logo/${accountId}/${survey.uniqueId}?v=${survey.logoAttachmentId}` : null,
    link: `${url.origin}${publicSurveyPath(survey)}`,
    snippet,
    folders: folders.map((f) => ({ id: f.id, name: f.name })),
    tags: tags.map((t) => ({ id: t.id, name: t.name })),
    senders,
    cutOff: cutOffBounds(),
    lists,
    schedule: scheduleFormValues(schedule),
    zones: email && step === 'settings' ? TIME_ZONES : [],
  };
}

type ActionData = { reply?: Reply; error?: string; panel?: Panel; selectedId?: string | null; form?: 'step' | 'share' | 'logo' | 'csv' };

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, survey, step } = await guard(request, params);
  const formData = await request.formData();
  const rawIntent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id, viewer: viewerOf(ctx), id: survey.id };
  const channel = survey.channel;
  const url = new URL(request.url);
  const selectedId = typeof formData.get('questionId') === 'string' ? (formData.get('questionId') as string) : url.searchParams.get('q');
  const selected = survey.questions.find((q) => q.id === selectedId) ?? null;
  const panelOf = (v: FormDataEntryValue | null) => ((PANELS as readonly string[]).includes(String(v)) ? (String(v) as Panel) : 'components');
  const refuse = (body: ActionData, status = 400) => data<ActionData>(body, { status });

  // The logo's buttons are in the Design step's (multipart) form: the step is saved first, like Save, so nothing
  // typed is lost, then the logo is uploaded or removed.
  const logoIntent = rawIntent === 'logo-upload' || rawIntent === 'logo-remove' ? rawIntent : null;
  if (logoIntent && step !== 'design') throw new Response('Bad Request', { status: 400 });
  if (rawIntent === 'share') {
    if (step !== 'share' || channel !== 'in-app') throw new Response('Bad Request', { status: 400 });
    const submission = parseWithZod(formData, { schema: ShareSchema });
    if (submission.status !== 'success') return refuse({ form: 'share', reply: submission.reply() });
    const snippet = await inAppSnippet({ accountId: ctx.account.id, uniqueId: survey.uniqueId, scriptUrl: bareUrl(request, '/public/widget.js') });
    if (!snippet) return refuse({ form: 'share', reply: submission.reply({ formErrors: ['Create a messenger inbox first.'] }) });
    await sendShareInstructions({
      accountId: ctx.account.id,
      from: `${ctx.user.firstName} ${ctx.user.lastName}`.trim() || ctx.user.email,
      surveyName: survey.name,
      snippet,
      emails: submission.value.emails,
      message: submission.value.message,
    });
    return redirectWithToast(editorUrl(survey, 'share'), SURVEY_TOASTS.shared);
  }
  if (rawIntent === 'reorder') {
    // With JavaScript a drag and drop posts the whole order; anything but every question once is refused whole.
    if (step !== 'design') throw new Response('Bad Request', { status: 400 });
    const submission = parseWithZod(formData, { schema: ReorderSchema });
    if (submission.status !== 'success') return refuse({ form: 'step', error: 'The new order must list every question of the survey once' });
    try {
      await updateSurvey({ ...who, patch: { questions: reorderQuestions(survey.questions, submission.value.order, survey.subType) }, step });
    } catch (err) {
      if (err instanceof SurveyInputError) return refuse({ form: 'step', error: err.message });
      throw err;
    }
    return redirectWithToast(editorUrl(survey, 'design', { q: selected?.id }), SURVEY_TOASTS.updated);
  }

  if (rawIntent === 'csv-upload') {
    // The list upload (section 7 "surveys/{id}/csv"): the list name and the file; the target then names the list.
    if (step !== 'target' || channel !== 'email') throw new Response('Bad Request', { status: 400 });
    const typed = Object.fromEntries([...formData].filter(([, v]) => typeof v === 'string'));
    const again = (error: string) =>
      refuse({ form: 'csv', error, reply: { initialValue: { ...typed, audience: 'csv', tagIds: formData.getAll('tagIds') }, error: {} } });
    const named = RecipientListSchema.safeParse({ listName: formData.get('listName') ?? '' });
    if (!named.success) return again(named.error.issues[0].message);
    const file = formData.get('file');
    if (!(file instanceof File) || file.size === 0) return again(SURVEY_MESSAGES.csvMissing);
    try {
      // Step 1 keeps the file; the mapping screen (columns mapped like the contact import) makes the entries.
      const { listId } = await storeRecipientList({
        accountId: ctx.account.id,
        surveyId: survey.id,
        actorId: ctx.user.id,
        listName: named.data.listName,
        filename: file.name,
        bytes: Buffer.from(await file.arrayBuffer()),
      });
      return redirect(`/surveys/${survey.id}/lists/${listId}`);
    } catch (err) {
      if (err instanceof SurveyInputError) return again(err.message);
      throw err;
    }
  }

  const intent = parseEditorIntent(logoIntent ? 'save' : rawIntent, channel);
  if (!intent) throw new Response('Unknown intent', { status: 400 });
  if (intent.kind === 'publish' && step !== stepsOf(channel).at(-1)) throw new Response('Publish is the last step', { status: 400 });

  // The step's own form: parsed whole, saved when it changed, then the button's move.
  let patch: Parameters<typeof updateSurvey>[0]['patch'] = {};
  let nextSelected: string | null = selected?.id ?? null;
  let toast: string | null = null;
  let panel: Panel = intent.kind === 'panel' ? intent.panel : panelOf(formData.get('panel'));
  let scheduleChanged = false;

  if (step === 'design') {
    // Deleting the question being edited does not need its fields to be valid.
    const editing = intent.kind === 'delete' && intent.id === selected?.id ? null : selected;
    const submission = parseWithZod(formData, { schema: designStepSchema(channel, editing?.type ?? null) });
    if (submission.status !== 'success') {
      const keys = Object.keys(submission.error ?? {});
      panel = keys.some((k) => k.startsWith('design.')) ? 'design' : keys.some((k) => k.startsWith('messages.')) ? 'messages' : 'components';
      return refuse({ form: 'step', reply: submission.reply(), panel, selectedId: selected?.id ?? null });
    }
    const value = submission.value as { design: Survey['design']; messages: Survey['messages']; question?: QuestionEdit };
    let list: SurveyQuestion[] = survey.questions;
    if (editing && value.question) list = list.map((q) => (q.id === editing.id ? mergeQuestion(q, value.question!) : q));
    try {
      const op = applyQuestionOp(survey, list, intent, selected?.id ?? null);
      list = op.list;
      nextSelected = op.selected;
      toast = op.toast;
      if (intent.kind !== 'panel' && intent.kind !== 'save' && intent.kind !== 'next' && intent.kind !== 'back' && intent.kind !== 'goto' && intent.kind !== 'publish') panel = 'components';
    } catch (err) {
      if (err instanceof SurveyInputError) return refuse({ form: 'step', reply: submission.reply(), error: err.message, panel: 'components', selectedId: selected?.id ?? null }, err.status);
      throw err;
    }
    patch = { design: { ...survey.design, ...value.design }, messages: value.messages, questions: list };
  } else if (step === 'target') {
    if (intent.kind === 'add-page' || intent.kind === 'remove-page') {
      // A new page condition is an empty row to fill in: the form comes back with it, nothing is saved yet.
      const submission = parseWithZod(formData, { schema: targetSchema(channel) });
      const typed = { ...(submission.payload as Record<string, unknown>) };
      const rows = Array.isArray(typed.allowedPages) ? [...(typed.allowedPages as unknown[])] : [];
      if (intent.kind === 'add-page') rows.push({ link: '', linkType: 'exact' });
      else rows.splice(intent.index, 1);
      return data<ActionData>({ form: 'step', reply: { initialValue: { ...typed, allowedPages: rows, showOnAllPages: 'some' }, error: {} } });
    }
    const submission = parseWithZod(formData, { schema: targetSchema(channel) });
    if (submission.status !== 'success') return refuse({ form: 'step', reply: submission.reply() });
    patch = { target: submission.value };
  } else if (step === 'settings') {
    const schema = channel === 'email' ? emailSettingsSchema() : settingsSchema();
    const submission = parseWithZod(formData, { schema });
    if (submission.status !== 'success') return refuse({ form: 'step', reply: submission.reply() });
    const { schedule, ...rest } = submission.value as ReturnType<ReturnType<typeof settingsSchema>['parse']> & { schedule?: EmailSchedule };
    patch = rest;
    if (schedule) scheduleChanged = await updateEmailSchedule({ accountId: ctx.account.id, surveyId: survey.id, schedule });
  }

  let changed = false;
  try {
    const result = Object.keys(patch).length ? await updateSurvey({ ...who, patch, step }) : { changed: false };
    if (!result) throw new Response('Not Found', { status: 404 });
    changed = result.changed || scheduleChanged;
  } catch (err) {
    if (err instanceof SurveyInputError) return refuse({ form: 'step', error: err.message, selectedId: selected?.id ?? null, panel }, err.status);
    throw err;
  }

  if (logoIntent) {
    const back = editorUrl(survey, 'design', { q: selected?.id, panel: 'design' });
    try {
      if (logoIntent === 'logo-upload') {
        const file = formData.get('logo');
        await uploadSurveyLogo({ ...who, file: file instanceof File ? file : null });
        return redirectWithToast(back, SURVEY_TOASTS.logoUploaded);
      }
      await removeSurveyLogo(who);
      return redirectWithToast(back, { type: 'info', text: SURVEY_TOASTS.logoRemoved });
    } catch (err) {
      // The step is saved already: the page shows it with the logo's message.
      if (err instanceof SurveyInputError) return refuse({ form: 'logo', error: err.message, panel: 'design', selectedId: selected?.id ?? null });
      throw err;
    }
  }

  if (intent.kind === 'publish') {
    try {
      await publishSurvey(who);
    } catch (err) {
      if (err instanceof SurveyInputError) return refuse({ form: 'step', error: err.message });
      throw err;
    }
    return redirectWithToast('/surveys', SURVEY_TOASTS.published);
  }
  const to = targetStep(intent, channel, step);
  const where = to
    ? editorUrl(survey, to)
    : editorUrl(survey, step, step === 'design' ? { q: nextSelected, panel: panel === 'components' ? null : panel } : {});
  if (toast) return redirectWithToast(where, { type: 'info', text: toast });
  if (changed) return redirectWithToast(where, SURVEY_TOASTS.updated);
  return redirect(where);
}

export const handle = {
  breadcrumb: (loaderData: { survey: { name: string } } | undefined) => loaderData?.survey.name ?? null,
};

export default function SurveyEditor() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const { survey, step, link, snippet, folders, tags, senders, cutOff, logoUrl, lists, zones } = loaderData;
  const channel = survey.channel as SurveyChannel;
  const steps = stepsOf(channel);
  const last = steps.at(-1) === step;
  const selectedId = actionData?.selectedId !== undefined ? actionData.selectedId : loaderData.selectedId;
  const selected = survey.questions.find((q) => q.id === selectedId) ?? null;
  const location = useLocation();
  const panel = actionData?.panel ?? loaderData.panel;
  const stepReply = actionData?.form === 'step' || actionData?.form === 'csv' ? actionData.reply : null;

  let stored: Record<string, unknown> = {};
  if (step === 'design') stored = { design: { ...survey.design, footerOn: Boolean(survey.design.footer) }, messages: survey.messages, question: selected ? { ...selected, showHeading: Boolean(selected.heading) } : null };
  if (step === 'target')
    stored = {
      ...survey.target,
      audience: survey.target.audience ?? 'tags',
      listId: survey.target.listId ?? lists.at(-1)?.id,
      showOnAllPages: survey.target.showOnAllPages ? 'all' : 'some',
      allowedPages: survey.target.allowedPages ?? [],
      displayDelay: survey.target.displayDelay ?? 10,
      displayScroll: survey.target.displayScroll ?? 100,
    };
  if (step === 'settings')
    stored = {
      name: survey.name,
      folderId: survey.folderId,
      language: survey.language,
      allowPartialSubmission: survey.allowPartialSubmission,
      responseLimitOn: survey.responseLimit !== null,
      responseLimit: survey.responseLimit ?? 50,
      cutOffOn: survey.cutOffDate !== null,
      cutOffDate: survey.cutOffDate ?? cutOff.tomorrow,
      schedule: loaderData.schedule,
    };
  const r = readReply(stepReply, stored);
  // Every navigation (each save redirects) shows the stored survey afresh; a refused post keeps what was typed. Not the
  // survey's updatedAt: single fetch keeps it a Date, whose string has whole seconds, so two saves in one second kept
  // the old form (and Save stayed enabled).
  const formKey = `${step}-${location.key}-${selected?.id ?? ''}-${actionData ? 'a' : 'l'}`;
  const live = useLivePreview({ formKey, design: survey.design, messages: survey.messages, questions: survey.questions, selectedId: selected?.id ?? null });

  return (
    <section className="page survey-editor" data-testid="survey-editor">
      <div className="editor-bar">
        <Link to="/surveys" className="btn" data-testid="exit">
          Exit
        </Link>
        {step !== 'design' ? (
          <button type="submit" form="step-form" className="btn" name="intent" value="back">
            Back
          </button>
        ) : null}
        <h1>{survey.name}</h1>
        <span className="muted">
          {CHANNEL_LABELS[channel]} · {SUB_TYPE_LABELS[survey.subType]}
        </span>
        <span className={`pill status-${survey.status}`} data-testid="editor-status">
          {STATUS_LABELS[survey.status]}
        </span>
      </div>
      <div className="editor-bar">
        <nav className="editor-tabs" aria-label="Steps">
          {steps.map((s) => (
            <button key={s} type="submit" form="step-form" name="intent" value={`goto:${s}`} aria-current={s === step ? 'step' : undefined}>
              {STEP_LABELS[s]}
            </button>
          ))}
        </nav>
        <div className="editor-actions">
          <SaveButton formKey={formKey} />
          <button type="submit" form="step-form" className="btn btn-primary" name="intent" value={last ? 'publish' : 'next'} data-testid="primary">
            {last ? 'Publish' : 'Next'}
          </button>
        </div>
      </div>
      {actionData?.error && actionData.form !== 'logo' && actionData.form !== 'csv' ? (
        <p className="field-error" role="alert" data-testid="editor-error">
          {actionData.error}
        </p>
      ) : null}
      {stepReply?.error && Object.values(stepReply.error).some((e) => e?.length) ? (
        <p className="field-error" role="alert" data-testid="editor-invalid">
          Some fields need your attention: nothing was saved, what you typed is kept below.
        </p>
      ) : null}
      <Form method="post" id="step-form" key={formKey} className="stack" noValidate encType={step === 'design' || (step === 'target' && channel === 'email') ? 'multipart/form-data' : undefined}>
        <UnsavedChangesGuard />
        {step === 'design' ? (
          <>
            {selected ? <input type="hidden" name="questionId" value={selected.id} /> : null}
            <div className="editor-body">
              <DesignPanels
                channel={channel}
                subType={survey.subType}
                questions={survey.questions}
                selected={selected}
                panel={panel}
                r={r}
                senders={senders}
                logo={<LogoControl logoUrl={logoUrl} error={actionData?.form === 'logo' ? (actionData.error ?? null) : null} />}
              />
              <SurveyPreview
                channel={channel}
                name={survey.name}
                design={live.design}
                messages={live.messages}
                questions={live.questions}
                selectedId={selected?.id ?? null}
                logoUrl={logoUrl}
              />
            </div>
          </>
        ) : null}
        {step === 'target' && channel === 'email' ? (
          <EmailTargetFields surveyId={survey.id} r={r} tags={tags} lists={lists} draft={survey.status === 'draft'} csvError={actionData?.form === 'csv' ? (actionData.error ?? null) : null} />
        ) : step === 'target' ? (
          <TargetFields channel={channel} r={r} />
        ) : null}
        {step === 'settings' ? <SettingsFields r={r} folders={folders} cutOff={cutOff} /> : null}
        {step === 'settings' && channel === 'email' ? <EmailScheduleFields r={r} zones={zones} /> : null}
        <FieldErrors errors={r.errors('')} />
      </Form>
      {step === 'share' ? <ShareStep channel={channel} link={link} snippet={snippet} r={readReply(actionData?.form === 'share' ? actionData.reply : null, {})} /> : null}
    </section>
  );
}

/** Section 2: Save stays disabled until something changes (with JavaScript; without it, it is always there). */
function SaveButton({ formKey }: { formKey: string }) {
  const hydrated = useHydrated();
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    setDirty(false);
    const form = document.getElementById('step-form') as HTMLFormElement | null;
    if (!form) return;
    // Changed means different from what the step showed (typing a change back disables Save again); the open panel is not a change.
    const snapshot = () =>
      [...new FormData(form)]
        .filter(([k, v]) => k !== 'panel' && typeof v === 'string')
        .map(([k, v]) => `${k}=${v as string}`)
        .join('&');
    const initial = snapshot();
    const on = () => setDirty(snapshot() !== initial);
    form.addEventListener('input', on);
    form.addEventListener('change', on);
    return () => {
      form.removeEventListener('input', on);
      form.removeEventListener('change', on);
    };
  }, [formKey]);
  return (
    <button type="submit" form="step-form" className="btn" name="intent" value="save" disabled={hydrated && !dirty} data-testid="save">
      Save
    </button>
  );
}

/** The logo's controls belong to the Design step's form, which saves the step before it uploads or removes the logo. */
function LogoControl({ logoUrl, error }: { logoUrl: string | null; error: string | null }) {
  return (
    <fieldset className="field">
      <legend>Logo</legend>
      {logoUrl ? (
        <div className="logo-box">
          <img src={logoUrl} alt="Survey logo" />
          <button type="submit" className="btn" name="intent" value="logo-remove">
            Remove logo
          </button>
        </div>
      ) : (
        <div className="logo-box">
          <input type="file" name="logo" accept=".png,.jpg,.jpeg,image/png,image/jpeg" aria-label="Logo file" aria-describedby="logo-hint" />
          <button type="submit" className="btn" name="intent" value="logo-upload">
            Upload
          </button>
        </div>
      )}
      <small id="logo-hint" className="muted">
        png, jpg or jpeg, max size 2MB; recommended 800x800 pixels; images taller than 32px are scaled down.
      </small>
      {error ? (
        <p className="field-error" role="alert" data-testid="logo-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data ? `${STEP_LABELS[data.step as EditorStep]} · ${data.survey.name}` : 'Survey', 'Surveys') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

