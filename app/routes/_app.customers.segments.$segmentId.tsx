import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SegmentFormSchema, SegmentStepOneSchema } from '~/models/crm/segments.schemas';
import {
  EMPTY_CONDITIONS,
  readDialogState,
  segmentStepTwo,
  stateFromSegment,
  toConditions,
  type SegmentDialogState,
} from '~/models/crm/segments-dialog.server';
import { createSegment, getSegment, updateSegment, type SegmentKind } from '~/models/crm/segments.server';
import { FieldInputError } from '~/models/productivity/shared.server';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, roleDenied, type AppContext } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

async function guard(request: Request): Promise<AppContext> {
  const ctx = await requireFeature(request, 'customerManagement/customerList');
  if (!can(ctx, 'manage_contacts')) await roleDenied(request);
  return ctx;
}

async function load(ctx: AppContext, request: Request, param: string | undefined) {
  const id = readEditorParam(param);
  if (id === 'new') {
    const kind: SegmentKind = new URL(request.url).searchParams.get('kind') === 'company' ? 'company' : 'contact';
    return { id: null, kind, state: { name: '', type: 'dynamic', conditions: EMPTY_CONDITIONS, memberIds: [] } as SegmentDialogState };
  }
  const segment = await getSegment({ accountId: ctx.account.id, id });
  if (!segment) throw new Response('Not Found', { status: 404 });
  return { id: segment.id, kind: segment.kind, state: stateFromSegment(segment) };
}

/** Step 1 (name and type) on GET; editing reopens here with the saved data. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await guard(request);
  return load(ctx, request, params.segmentId);
}

const listPath = (kind: SegmentKind, id?: number) =>
  kind === 'contact' ? (id ? `/customers/segment/${id}` : '/customers') : id ? `/customers/companies/segment/${id}` : '/customers/companies';

/**
 * Every button of the dialog posts here: next (step 1 → 2), back, preview (recount), reset (clear conditions),
 * search and page:N (member picker), save (Create or Update). Step 2 renders from this answer, with the step-1
 * values in hidden fields, so the dialog needs no JavaScript.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await guard(request);
  const { id, kind } = await load(ctx, request, params.segmentId);
  const form = await request.formData();
  const intent = String(form.get('intent') ?? '');
  const state = readDialogState(form);
  const search = String(form.get('memberSearch') ?? '').trim().slice(0, 100);
  let memberPage = Number(form.get('memberPage') ?? 1) || 1;

  const stepOne = (reply: SubmissionResult<string[]> | null, status = 200) =>
    data({ step: 1 as const, state, reply, stepTwo: null, search, memberPage, error: null }, { status });
  const stepTwo = async (error: string | null = null, status = 200) =>
    data(
      { step: 2 as const, state, reply: null, stepTwo: await segmentStepTwo({ accountId: ctx.account.id, kind, state, search, memberPage }), search, memberPage, error },
      { status },
    );

  if (intent === 'back') return stepOne(null);
  if (intent === 'next') {
    const submission = parseWithZod(form, { schema: SegmentStepOneSchema });
    if (submission.status !== 'success') return stepOne(submission.reply(), 400);
    state.name = submission.value.name;
    return stepTwo();
  }
  if (intent === 'reset') {
    state.conditions = { ...EMPTY_CONDITIONS };
    return stepTwo();
  }
  if (intent === 'preview') return stepTwo();
  if (intent === 'search') {
    memberPage = 1;
    return stepTwo();
  }
  if (intent.startsWith('page:')) {
    memberPage = Math.max(1, Number(intent.slice(5)) || 1);
    return stepTwo();
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const first = parseWithZod(form, { schema: SegmentStepOneSchema });
  if (first.status !== 'success') return stepOne(first.reply(), 400);
  const submission = parseWithZod(form, { schema: SegmentFormSchema });
  if (submission.status !== 'success') {
    const messages = Object.values(submission.error ?? {}).flat().filter((m): m is string => typeof m === 'string');
    return stepTwo(messages[0] ?? 'Something went wrong', 400);
  }
  const v = submission.value;
  const write = {
    accountId: ctx.account.id,
    actorId: ctx.user.id,
    name: v.name,
    isStatic: v.type === 'static',
    conditions: toConditions(state.conditions),
    memberIds: v.memberIds,
  };
  try {
    if (id === null) {
      const row = await createSegment({ ...write, kind });
      return redirectWithToast(listPath(kind, row.id), 'Segment created');
    }
    const row = await updateSegment({ ...write, id });
    if (!row) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(listPath(kind, row.id), { type: 'info', text: 'Updated' });
  } catch (err) {
    if (err instanceof FieldInputError) return stepTwo(err.message, 400);
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { id: number | null } | undefined) => (loaderData ? (loaderData.id ? 'Edit Segment' : 'New Segment') : null),
};

export default function SegmentDialog() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const state = actionData?.state ?? loaderData.state;
  const step = actionData?.step ?? 1;
  const key = `${step}-${JSON.stringify(state)}-${actionData?.memberPage ?? 1}-${actionData?.search ?? ''}-${actionData?.stepTwo?.count ?? ''}`;
  const editing = loaderData.id !== null;
  const cancelTo = listPath(loaderData.kind, loaderData.id ?? undefined);
  return (
    <dialog open aria-labelledby="segment-dialog-title" className="segment-dialog" data-testid="segment-dialog" style={{ position: 'relative', maxWidth: '36rem' }}>
      <h2 id="segment-dialog-title">
        {editing ? 'Edit Segment' : loaderData.kind === 'contact' ? 'New Contact Segment' : 'New Company Segment'}{' '}
        <small className="muted">Step {step} of 2</small>
      </h2>
      {step === 1 ? (
        <StepOne key={key} state={state} reply={actionData?.reply ?? undefined} cancelTo={cancelTo} />
      ) : actionData?.stepTwo ? (
        <StepTwo
          key={key}
          kind={loaderData.kind}
          state={state}
          stepTwo={actionData.stepTwo}
          search={actionData.search}
          error={actionData.error}
          editing={editing}
          cancelTo={cancelTo}
        />
      ) : null}
    </dialog>
  );
}

function HiddenState({ state, only }: { state: SegmentDialogState; only?: 'step1' | 'step2' }) {
  return (
    <>
      {only !== 'step2' ? (
        <>
          <input type="hidden" name="name" value={state.name} />
          <input type="hidden" name="type" value={state.type} />
        </>
      ) : null}
      {only !== 'step1' ? (
        <>
          {Object.entries(state.conditions).map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
          {state.memberIds.map((id) => (
            <input key={id} type="hidden" name="memberIds" value={id} />
          ))}
        </>
      ) : null}
    </>
  );
}

function StepOne({ state, reply, cancelTo }: { state: SegmentDialogState; reply: SubmissionResult<string[]> | undefined; cancelTo: string }) {
  const [form, fields] = useForm({
    id: 'segment-step-1',
    lastResult: reply,
    defaultValue: { name: state.name, type: state.type },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)} className="stack">
      <HiddenState state={state} only="step2" />
      <Field label="Segment Name" field={fields.name} autoComplete="off" />
      <fieldset>
        <legend>Type</legend>
        <label className="check">
          <input {...getInputProps(fields.type, { type: 'radio', value: 'dynamic' })} key="dynamic" /> Dynamic (by conditions)
        </label>
        <label className="check">
          <input {...getInputProps(fields.type, { type: 'radio', value: 'static' })} key="static" /> Static (chosen members)
        </label>
        <ErrorList id={fields.type.errorId} errors={fields.type.errors} />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="dialog-actions">
        <Link to={cancelTo} className="btn">
          Cancel
        </Link>
        <button type="submit" className="btn btn-primary" name="intent" value="next">
          Next
        </button>
      </div>
    </Form>
  );
}

type StepTwoData = NonNullable<NonNullable<ReturnType<typeof useActionData<typeof action>>>['stepTwo']>;

function StepTwo(props: { kind: SegmentKind; state: SegmentDialogState; stepTwo: StepTwoData; search: string; error: string | null; editing: boolean; cancelTo: string }) {
  const { state, stepTwo } = props;
  const saveLabel = props.editing ? 'Update' : 'Create';
  return (
    <Form
      method="post"
      className="stack"
      // With JavaScript the count follows each change of a condition; without it, Refresh count does the same post.
      onChange={(e) => {
        if ((e.target as HTMLElement).tagName !== 'SELECT') return;
        const preview = e.currentTarget.querySelector<HTMLButtonElement>('button[value="preview"]');
        if (preview) e.currentTarget.requestSubmit(preview);
      }}
    >
      <HiddenState state={state} only="step1" />
      <p>
        <strong>{state.name}</strong> · {state.type === 'dynamic' ? 'Dynamic' : 'Static'}
      </p>
      {stepTwo.options ? (
        <>
          <p className="muted">Filters apply only if at least one condition is non-empty; Reset Filter clears them.</p>
          {props.kind === 'contact' ? (
            <Select label="Assignee" name="assigneeId" value={state.conditions.assigneeId} options={stepTwo.options.users} />
          ) : null}
          <Select label="Tag" name="tag" value={state.conditions.tag} options={stepTwo.options.tags} />
          {props.kind === 'contact' ? <Select label="Company" name="company" value={state.conditions.company} options={stepTwo.options.companies} /> : null}
          <Select label="Country" name="country" value={state.conditions.country} options={stepTwo.options.countries} />
          <Select
            label="Favourite"
            name="isFavourite"
            value={state.conditions.isFavourite}
            options={[
              { value: 'true', label: 'Favourites' },
              { value: 'false', label: 'Not favourites' },
            ]}
          />
          <p data-testid="segment-count" aria-live="polite">
            Matching {props.kind === 'contact' ? 'contacts' : 'companies'}: <strong>{stepTwo.count}</strong>
          </p>
          <div className="row">
            <button type="submit" className="btn" name="intent" value="preview">
              Refresh count
            </button>
            <button type="submit" className="btn" name="intent" value="reset">
              Reset Filter
            </button>
          </div>
        </>
      ) : stepTwo.candidates ? (
        <MemberPicker kind={props.kind} state={state} candidates={stepTwo.candidates} search={props.search} />
      ) : null}
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <Link to={props.cancelTo} className="btn">
          Cancel
        </Link>
        <button type="submit" className="btn" name="intent" value="back">
          Back
        </button>
        <button type="submit" className="btn btn-primary" name="intent" value="save">
          {saveLabel}
        </button>
      </div>
    </Form>
  );
}

function Select({ label, name, value, options }: { label: string; name: string; value: string; options: { value: string; label: string }[] }) {
  return (
    <div className="field">
      <label htmlFor={`segment-${name}`}>{label}</label>
      <select id={`segment-${name}`} name={name} defaultValue={value}>
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Static members: a searched, paged list of checkboxes; choices on other pages travel as hidden fields. */
function MemberPicker(props: {
  kind: SegmentKind;
  state: SegmentDialogState;
  candidates: NonNullable<StepTwoData['candidates']>;
  search: string;
}) {
  const { candidates, state } = props;
  const visible = new Set(candidates.rows.map((r) => r.id));
  const chosen = new Set(state.memberIds);
  const pages = Math.max(1, Math.ceil(candidates.total / candidates.pageSize));
  return (
    <div className="stack">
      {Object.entries(state.conditions).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {state.memberIds
        .filter((id) => !visible.has(id))
        .map((id) => (
          <input key={id} type="hidden" name="memberIds" value={id} />
        ))}
      <input type="hidden" name="memberPage" value={candidates.page} />
      <div className="row">
        <input type="search" name="memberSearch" defaultValue={props.search} aria-label="Search members" placeholder={props.kind === 'contact' ? 'Search contacts' : 'Search companies'} />
        <button type="submit" className="btn" name="intent" value="search">
          Search
        </button>
      </div>
      <p className="muted" data-testid="segment-count">
        Chosen: <strong>{state.memberIds.length}</strong>
      </p>
      {candidates.rows.length === 0 ? <p className="muted">Nothing matches.</p> : null}
      <ul data-testid="member-candidates">
        {candidates.rows.map((r) => (
          <li key={r.id}>
            <label className="check">
              <input type="checkbox" name="memberIds" value={r.id} defaultChecked={chosen.has(r.id)} /> {r.label} <span className="muted">{r.sub}</span>
            </label>
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav className="pager" aria-label="Member pages">
          {candidates.page > 1 ? (
            <button type="submit" className="btn btn-link" name="intent" value={`page:${candidates.page - 1}`} aria-label="Previous page">
              ‹
            </button>
          ) : null}
          <span aria-current="page">
            {candidates.page} / {pages}
          </span>
          {candidates.page < pages ? (
            <button type="submit" className="btn btn-link" name="intent" value={`page:${candidates.page + 1}`} aria-label="Next page">
              ›
            </button>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.id ? 'Edit Segment' : 'New Segment', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
