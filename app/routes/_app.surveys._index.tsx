import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { TableHead } from '~/components/ui/list-table';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useSubmit } from '@remix-run/react';
import { useRef } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { FieldErrors } from '~/components/surveys/fields';
import { readReply, type Reply } from '~/components/surveys/reply';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { Pager, readPage } from '~/components/ui/pager';
import { listAssigneeOptions } from '~/models/inbox/screens.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import {
  CHANNEL_LABELS,
  isChannel,
  LIMITS,
  STATUS_LABELS,
  SUB_TYPE_LABELS,
  SURVEY_CHANNELS,
  SURVEY_STATUSES,
  SURVEY_SUB_TYPES,
  SURVEY_TOASTS,
  type SurveyStatus,
} from '~/models/surveys/constants';
import { listEmailSenderOptions } from '~/models/surveys/senders.server';
import { createFolder, deleteFolder, listFolders, SurveyInputError, updateFolder } from '~/models/surveys/folders.server';
import { CreateSurveySchema, FolderSchema } from '~/models/surveys/schemas';
import { cloneSurvey, closeExpiredSurveys, createSurvey, deleteSurvey, endSurvey, listSurveys } from '~/models/surveys/surveys.server';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requireUser, type AppContext } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/surveys';

const viewerOf = (ctx: AppContext) => ({ userId: ctx.user.id, isAdmin: ctx.isOrgAdmin });

/** Everyone with the plan area sees the list; manage_surveys creates, edits and deletes (suite.md section 6). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requireUser(request));
  const url = new URL(request.url);
  const accountId = ctx.account.id;
  const viewer = viewerOf(ctx);
  await closeExpiredSurveys({ accountId });
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 100);
  const status = url.searchParams.get('status') as SurveyStatus | null;
  const channel = url.searchParams.get('type');
  const folderId = parseRowId(url.searchParams.get('folder')) ?? undefined;
  const filters = {
    q: q || undefined,
    status: status && (SURVEY_STATUSES as readonly string[]).includes(status) ? status : undefined,
    channel: isChannel(channel) ? channel : undefined,
    folderId,
  };
  const newType = url.searchParams.get('new');
  const folderForm = url.searchParams.get('folder-form');
  const [folders, list, users] = await Promise.all([
    listFolders({ accountId, viewer }),
    listSurveys({ accountId, viewer, ...filters, page: readPage(url) }),
    folderForm ? listAssigneeOptions({ accountId }) : Promise.resolve([]),
  ]);
  return {
    q,
    filters,
    folders,
    list,
    users,
    creating: isChannel(newType) ? newType : null,
    folderForm: folderForm === 'new' ? ('new' as const) : (parseRowId(folderForm) ?? null),
    locked: !can(ctx, 'manage_surveys'),
    user: publicUser(ctx),
  };
}

type ActionResult = { form: 'create' | 'folder' | 'row'; reply?: Reply; error?: string };

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requireUser(request));
  if (!can(ctx, 'manage_surveys')) throw new Response(ROLE_LOCKED_MESSAGE, { status: 403 });
  const form = await request.formData();
  const intent = form.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id, viewer: viewerOf(ctx) };
  const back = `${LIST}${new URL(request.url).search.replace(/^\?index&?/, '?').replace(/^\?$/, '')}`;

  if (intent === 'create') {
    const submission = parseWithZod(form, { schema: CreateSurveySchema });
    if (submission.status !== 'success') return data<ActionResult>({ form: 'create', reply: submission.reply() }, { status: 400 });
    try {
      // An email survey starts with the first sender address offered (section 3 "verifiedEmails").
      const sendFrom = submission.value.channel === 'email' ? (await listEmailSenderOptions({ accountId: ctx.account.id, host: new URL(request.url).host }))[0] : '';
      const survey = await createSurvey({ ...who, ...submission.value, sendFrom });
      return redirectWithToast(`/surveys/edit/${survey.id}/${survey.channel}/design`, SURVEY_TOASTS.created);
    } catch (err) {
      if (err instanceof SurveyInputError) return data<ActionResult>({ form: 'create', reply: submission.reply({ fieldErrors: { [err.field ?? '']: [err.message] } }) }, { status: 400 });
      throw err;
    }
  }
  if (intent === 'folder-create' || intent === 'folder-update') {
    const submission = parseWithZod(form, { schema: FolderSchema });
    if (submission.status !== 'success') return data<ActionResult>({ form: 'folder', reply: submission.reply() }, { status: 400 });
    try {
      if (intent === 'folder-create') {
        await createFolder({ ...who, ...submission.value });
        return redirectWithToast(LIST, SURVEY_TOASTS.folderCreated);
      }
      const id = parseRowId(form.get('id'));
      if (!id || !(await updateFolder({ ...who, id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(LIST, SURVEY_TOASTS.folderUpdated);
    } catch (err) {
      if (err instanceof SurveyInputError) return data<ActionResult>({ form: 'folder', reply: submission.reply({ fieldErrors: { [err.field ?? '']: [err.message] } }) }, { status: 400 });
      throw err;
    }
  }

  const id = parseRowId(form.get('id'));
  if (!id) throw new Response('Bad Request', { status: 400 });
  try {
    if (intent === 'folder-delete') {
      if (!(await deleteFolder({ ...who, id }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(LIST, { type: 'info', text: SURVEY_TOASTS.folderDeleted });
    }
    if (intent === 'delete') {
      if (!(await deleteSurvey({ ...who, id }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(back, { type: 'info', text: SURVEY_TOASTS.deleted });
    }
    if (intent === 'clone') {
      const copy = await cloneSurvey({ ...who, id });
      if (!copy) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(back, SURVEY_TOASTS.cloned);
    }
    if (intent === 'close') {
      const row = await endSurvey({ ...who, id, status: 'closed', reason: 'manual' });
      if (!row) return data<ActionResult>({ form: 'row', error: 'Only a published survey can be closed.' }, { status: 400 });
      return redirectWithToast(back, { type: 'info', text: SURVEY_TOASTS.closed });
    }
  } catch (err) {
    if (err instanceof SurveyInputError) return data<ActionResult>({ form: 'row', error: err.message }, { status: err.status });
    throw err;
  }
  throw new Response('Unknown intent', { status: 400 });
}

export default function SurveyList() {
  const { q, filters, folders, list, creating, folderForm, locked, user } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as ActionResult | undefined;
  const params = (extra: Record<string, string | undefined>) => {
    const p = new URLSearchParams();
    const all = { q: q || undefined, status: filters.status, type: filters.channel, folder: filters.folderId ? String(filters.folderId) : undefined, ...extra };
    for (const [k, v] of Object.entries(all)) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `?${s}` : '';
  };
  const showCreate = creating ?? (actionData?.form === 'create' ? 'web' : null);
  // With JavaScript the search runs as you type, 300 ms after the last key (section 7); without it, on Search.
  const submit = useSubmit();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const searchAsYouType = (e: React.ChangeEvent<HTMLInputElement>) => {
    const form = e.currentTarget.form;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => form && submit(form, { replace: true }), 300);
  };
  return (
    <section className="page stack surveys-list">
      <header className="row wrap">
        <h1>Surveys</h1>
        <span className="muted" data-testid="survey-count">
          {list.total}
        </span>
        <div className="spacer" />
        {locked ? (
          <span className="btn" aria-disabled="true" title={ROLE_LOCKED_MESSAGE} data-testid="create-survey-denied">
            <DeniedBadge kind="role" /> Create Survey
          </span>
        ) : (
          <details className="type-picker">
            <summary className="btn btn-primary">Create Survey</summary>
            <ul className="menu-items" aria-label="Survey type">
              {SURVEY_CHANNELS.map((c) => (
                <li key={c}>
                  <Link to={`?new=${c}`} data-testid={`new-${c}`}>
                    {CHANNEL_LABELS[c]}
                  </Link>
                </li>
              ))}
            </ul>
          </details>
        )}
      </header>
      <p className="muted" data-testid="surveys-purpose">
        NPS, CSAT and CES surveys inside your app, by email or on a web page. <Link to="/help-center/surveys">Learn more</Link>
      </p>
      {actionData?.form === 'row' && actionData.error ? (
        <p className="field-error" role="alert" data-testid="survey-error">
          {actionData.error}
        </p>
      ) : null}
      {showCreate ? <CreateSurvey channel={actionData?.form === 'create' ? null : showCreate} folders={folders} reply={actionData?.form === 'create' ? actionData.reply : null} /> : null}
      {folderForm !== null || actionData?.form === 'folder' ? <FolderForm reply={actionData?.form === 'folder' ? actionData.reply : null} /> : null}
      <div className="surveys-layout">
        <aside className="card folder-list" aria-label="Folders">
          <h2>Folders</h2>
          <ul>
            <li>
              <Link to={params({ folder: undefined })} aria-current={!filters.folderId ? 'page' : undefined}>
                All surveys
              </Link>
            </li>
            {folders.map((f) => (
              <li key={f.id} data-testid={`folder-${f.name}`}>
                <Link to={params({ folder: String(f.id) })} aria-current={filters.folderId === f.id ? 'page' : undefined}>
                  {f.name}
                </Link>{' '}
                <span className="muted">
                  {f.surveyCount}
                  {f.isPublic ? '' : ' · private'}
                </span>
                {!f.isDefault && !locked ? (
                  <span className="folder-actions">
                    <Link to={`?folder-form=${f.id}`} aria-label={`Edit folder ${f.name}`}>
                      Edit
                    </Link>
                    <DeleteConfirm
                      id={`folder-${f.id}`}
                      action={`${LIST}?index`}
                      intent="folder-delete"
                      fields={{ id: String(f.id) }}
                      label={<span aria-label={`Delete folder ${f.name}`}>Delete</span>}
                      text={`Delete the folder ${f.name}? Its surveys move to General.`}
                    />
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
          {locked ? null : (
            <Link to="?folder-form=new" className="btn" data-testid="new-folder">
              New Folder
            </Link>
          )}
        </aside>
        <div className="stack">
          <Form method="get" className="filters row wrap" role="search" aria-label="Filter surveys">
            <input type="search" name="q" defaultValue={q} aria-label="Search surveys" placeholder="Search surveys" maxLength={100} onChange={searchAsYouType} />
            <select name="type" defaultValue={filters.channel ?? ''} aria-label="Type">
              <option value="">All types</option>
              {SURVEY_CHANNELS.map((c) => (
                <option key={c} value={c}>
                  {CHANNEL_LABELS[c]}
                </option>
              ))}
            </select>
            <select name="status" defaultValue={filters.status ?? ''} aria-label="Status">
              <option value="">All statuses</option>
              {SURVEY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABELS[s]}
                </option>
              ))}
            </select>
            {filters.folderId ? <input type="hidden" name="folder" value={filters.folderId} /> : null}
            <button type="submit" className="btn">
              Search
            </button>
            {q || filters.status || filters.channel ? (
              <Link to={filters.folderId ? `?folder=${filters.folderId}` : LIST} className="btn btn-link">
                Clear
              </Link>
            ) : null}
          </Form>
          {list.total === 0 ? (
            <div className="card empty-state" data-testid="no-surveys">
              <h2>{q || filters.status || filters.channel ? 'No surveys match your search.' : 'No surveys yet'}</h2>
              <p className="muted">Ask your customers how you are doing: NPS, CSAT and CES surveys in your app, by email or on a web page.</p>
            </div>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="surveys">
                <TableHead headers={['Name', 'Type', 'Folder', 'Status', 'Updated', { hidden: 'Actions' }]} />
                <tbody>
                  {list.rows.map((s) => (
                    <tr key={s.id} data-testid={`survey-${s.id}`}>
                      <td>
                        {locked ? <strong>{s.name}</strong> : <Link to={`/surveys/edit/${s.id}/${s.channel}/design`}>{s.name}</Link>}
                        <div className="muted">
                          {SUB_TYPE_LABELS[s.subType]} · {s.questionCount} questions
                        </div>
                      </td>
                      <td>{CHANNEL_LABELS[s.channel]}</td>
                      <td>{s.folderName}</td>
                      <td>
                        <span className={`pill status-${s.status}`} data-testid="survey-status">
                          {STATUS_LABELS[s.status]}
                        </span>
                      </td>
                      <td>{formatDateTime(s.updatedAt, user)}</td>
                      <td>
                        {locked ? null : (
                          <div className="row-actions">
                            {s.status !== 'draft' ? (
                              <Link to={`/surveys/${s.id}/results`} className="btn" aria-label={`Results of ${s.name}`}>
                                Results
                              </Link>
                            ) : null}
                            <Form method="post" action={`${LIST}?index${params({}).replace(/^\?/, '&')}`}>
                              <input type="hidden" name="id" value={s.id} />
                              <button type="submit" className="btn" name="intent" value="clone" aria-label={`Clone ${s.name}`}>
                                Clone
                              </button>
                            </Form>
                            {s.status === 'published' ? (
                              <DeleteConfirm
                                id={`close-${s.id}`}
                                action={`${LIST}?index`}
                                intent="close"
                                fields={{ id: String(s.id) }}
                                label="Close"
                                title="Close survey"
                                text="A closed survey takes no more responses until you publish it again."
                                confirmLabel="Close"
                                tone="neutral"
                              />
                            ) : null}
                            <DeleteConfirm id={`survey-${s.id}`} action={`${LIST}?index`} fields={{ id: String(s.id) }} label={<span aria-label={`Delete ${s.name}`}>Delete</span>} />
                          </div>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
        </div>
      </div>
    </section>
  );
}

function CreateSurvey({ channel, folders, reply }: { channel: string | null; folders: { id: number; name: string }[]; reply: Reply }) {
  const r = readReply(reply, { channel, folderId: folders[0]?.id });
  const ch = r.text('channel') || channel || 'web';
  return (
    <Form method="post" action={`${LIST}?index`} className="card stack create-survey" aria-labelledby="create-survey-title" data-testid="create-survey">
      <h2 id="create-survey-title">Create {CHANNEL_LABELS[ch as keyof typeof CHANNEL_LABELS] ?? ''} Survey</h2>
      <input type="hidden" name="channel" value={ch} />
      <div className="field">
        <label htmlFor="survey-name">Survey Name</label>
        <input id="survey-name" name="name" defaultValue={r.text('name')} maxLength={LIMITS.surveyName.max + 20} autoComplete="off" aria-invalid={r.errors('name').length > 0 || undefined} aria-describedby="survey-name-error" />
        <FieldErrors id="survey-name-error" errors={r.errors('name')} />
      </div>
      <div className="field">
        <label htmlFor="survey-folder">Folder</label>
        <select id="survey-folder" name="folderId" defaultValue={r.text('folderId')} aria-invalid={r.errors('folderId').length > 0 || undefined} aria-describedby="survey-folder-error">
          <option value="">Select a Folder</option>
          {folders.map((f) => (
            <option key={f.id} value={f.id}>
              {f.name}
            </option>
          ))}
        </select>
        <FieldErrors id="survey-folder-error" errors={r.errors('folderId')} />
      </div>
      <fieldset className="field sub-types" aria-describedby="survey-subtype-error">
        <legend>Survey Type</legend>
        <div className="choice-grid">
          {SURVEY_SUB_TYPES.map((t) => (
            <label key={t} className="check choice">
              <input type="radio" name="subType" value={t} defaultChecked={r.text('subType') === t} /> {SUB_TYPE_LABELS[t]}
            </label>
          ))}
        </div>
        <FieldErrors id="survey-subtype-error" errors={r.errors('subType')} />
      </fieldset>
      <FieldErrors errors={r.errors('channel')} />
      <div className="dialog-actions">
        <Link to={LIST} className="btn">
          Cancel
        </Link>
        <button type="submit" className="btn btn-primary" name="intent" value="create">
          Create
        </button>
      </div>
    </Form>
  );
}

function FolderForm({ reply }: { reply: Reply }) {
  const { folders, folderForm, users } = useLoaderData<typeof loader>();
  const editing = typeof folderForm === 'number' ? folders.find((f) => f.id === folderForm) : undefined;
  const r = readReply(reply, editing ? { name: editing.name, isPublic: editing.isPublic, userIds: editing.userIds } : { isPublic: true });
  const chosen = new Set(((r.value('userIds') as unknown[] | undefined) ?? []).map(String));
  return (
    <Form method="post" action={`${LIST}?index`} className="card stack folder-form" aria-labelledby="folder-form-title" data-testid="folder-form">
      <h2 id="folder-form-title">{editing ? `Edit folder ${editing.name}` : 'New Folder'}</h2>
      {editing ? <input type="hidden" name="id" value={editing.id} /> : null}
      <div className="field">
        <label htmlFor="folder-name">Folder Name</label>
        <input id="folder-name" name="name" defaultValue={r.text('name')} autoComplete="off" aria-describedby="folder-name-error" aria-invalid={r.errors('name').length > 0 || undefined} />
        <small className="muted">
          {LIMITS.folderName.min} to {LIMITS.folderName.max} characters
        </small>
        <FieldErrors id="folder-name-error" errors={r.errors('name')} />
      </div>
      <label className="check">
        <input type="checkbox" name="isPublic" defaultChecked={r.checked('isPublic')} /> Public — every user sees its surveys
      </label>
      <fieldset className="field">
        <legend>Users who see this folder when it is private</legend>
        <div className="choice-grid">
          {users.map((u) => (
            <label key={u.id} className="check">
              <input type="checkbox" name="userIds" value={u.id} defaultChecked={chosen.has(String(u.id))} /> {u.name}
            </label>
          ))}
        </div>
        <FieldErrors errors={r.errorsUnder('userIds')} />
      </fieldset>
      <div className="dialog-actions">
        <Link to={LIST} className="btn">
          Cancel
        </Link>
        <button type="submit" className="btn btn-primary" name="intent" value={editing ? 'folder-update' : 'folder-create'}>
          {editing ? 'Update' : 'Create'}
        </button>
      </div>
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Surveys') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

