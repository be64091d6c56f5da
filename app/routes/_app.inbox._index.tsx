import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { PRIORITY_CHOICES, SOURCE_CHOICES } from '~/components/inbox/choices';
import { AnchorLink } from '~/components/ui/anchor-link';
import { PriorityPill, SlaPill, StatusPill, TagPill, personName } from '~/components/inbox/pills';
import { useLiveInboxList } from '~/components/inbox/use-inbox-live';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList } from '~/components/ui/forms';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { Pager } from '~/components/ui/pager';
import { SortHeader } from '~/components/ui/sort-header';
import { countConversations, InvalidReferenceError, listConversations } from '~/models/inbox/conversations.server';
import { readConversationFilters, type ConversationFilters } from '~/models/inbox/filters';
import { filtersToSearch } from '~/models/inbox/filters-search';
import { STATUS_CHOICES } from '~/models/inbox/form-constants';
import { MassActionSchema } from '~/models/inbox/forms';
import { MASS_ACTION_TOASTS, runMassAction } from '~/models/inbox/mass-actions.server';
import { listFailingChannels } from '~/models/channels/health.server';
import { findOwnConversationIds, listInboxScreenOptions } from '~/models/inbox/screens.server';
import { CONVERSATION_STATUSES } from '../../db/schema/inbox-constants';
import { formatDateTime, pageTitle } from '~/utils/format';
import { can, publicUser, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** The list's own URL: its filters, sorting and page, only the non-empty ones (a plain GET form sends them all). */
function listSearch(url: URL) {
  return filtersToSearch(readConversationFilters(url));
}

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  // Bookmarkable filters hold only what was chosen: empty fields of the GET form are dropped with one redirect.
  if ([...url.searchParams].some(([k, v]) => v === '' && k !== 'index')) throw redirect(`/inbox${listSearch(url)}`);
  const filters = readConversationFilters(url);
  const scope = { accountId: ctx.account.id, userId: ctx.user.id, filters };
  const [list, counts, { inboxes, users, teams, tags }, failing] = await Promise.all([
    listConversations(scope),
    countConversations(scope),
    listInboxScreenOptions({ accountId: ctx.account.id }),
    listFailingChannels({ accountId: ctx.account.id }),
  ]);
  const me = publicUser(ctx);
  return {
    prefs: { dateFormat: me.dateFormat, timeFormat: me.timeFormat, timezone: me.timezone },
    userId: ctx.user.id,
    filters,
    list,
    counts,
    // A failing channel is flagged beside its inbox (ADR 024), with the error as the flag's text.
    inboxes: inboxes.map((i) => ({ id: i.id, name: i.name, failing: failing.find((f) => f.inboxId === i.id)?.lastError ?? null })),
    users,
    teams,
    tags,
    canManage: can(ctx, 'manage_conversation'),
    canCreateTicket: can(ctx, 'create_ticket'),
  };
}

type ActionResult = { result: SubmissionResult<string[]> };

/** PUT conversations/massaction: the ticked rows and one operation, told by the submit button's intent. */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_conversation');
  const url = new URL(request.url);
  const submission = parseWithZod(await request.formData(), { schema: MassActionSchema });
  if (submission.status !== 'success') return data<ActionResult>({ result: submission.reply() }, { status: 400 });
  const action = submission.value;
  // Every id must be one of the account's live conversations; anything else is not found, and nothing changes.
  const own = await findOwnConversationIds({ accountId: ctx.account.id, ids: action.ids });
  if (own.length !== action.ids.length) throw new Response('Not Found', { status: 404 });
  try {
    await runMassAction({ accountId: ctx.account.id, actorId: ctx.user.id, action });
  } catch (err) {
    if (err instanceof InvalidReferenceError) return data<ActionResult>({ result: submission.reply({ formErrors: [err.message] }) }, { status: 400 });
    throw err;
  }
  const text = MASS_ACTION_TOASTS[action.intent];
  return redirectWithToast(`/inbox${listSearch(url)}`, action.intent === 'delete' ? text : { type: 'info', text });
}

export default function InboxList() {
  const data = useLoaderData<typeof loader>();
  const { prefs, filters, inboxes, users, teams, tags, canManage, canCreateTicket } = data;
  // Kept current by the server's patches over the live socket (ADR 045); without JavaScript, what was rendered.
  const live = useLiveInboxList(data);
  const counts = live.counts;
  const list = { ...data.list, rows: live.rows, total: live.total, totalCapped: live.totalCapped };
  const actionData = useActionData<typeof action>();
  const location = useLocation();

  const link = (change: Partial<Record<keyof ConversationFilters, string | number | undefined>>) =>
    `/inbox${filtersToSearch({ ...filters, page: undefined, ...change })}`;
  const status = filters.status ?? 'open';
  const allCount = CONVERSATION_STATUSES.reduce((n, s) => n + (counts.byStatus[s] ?? 0), 0);
  const inboxTotal = Object.values(counts.byInbox).reduce((n, v) => n + v, 0);

  return (
    <div className="inbox">
      <aside className="inbox-side" aria-label="Filters">
        {/* Folded away on phones (a <details>); wider, CSS keeps it open. */}
        <details className="fold">
          <summary>Filters</summary>
          {canCreateTicket ? (
            <>
              <Link to="/inbox/new" className="btn btn-primary">
                New ticket
              </Link>
              <Link to="/inbox/compose" className="btn">
                New email
              </Link>
              <Link to="/inbox/message" className="btn">
                New SMS or chat
              </Link>
            </>
          ) : null}
          <h2>Status</h2>
          <ul data-testid="status-counts">
            {[...CONVERSATION_STATUSES, 'all' as const].map((s) => (
              <li key={s}>
                <AnchorLink to={link({ status: s === 'open' ? undefined : s })} aria-current={status === s ? 'true' : undefined}>
                  <span>{s === 'all' ? 'All' : s[0].toUpperCase() + s.slice(1)}</span>
                  <span className="muted">{s === 'all' ? allCount : counts.byStatus[s] ?? 0}</span>
                </AnchorLink>
              </li>
            ))}
          </ul>
          <h2>Inboxes</h2>
          <ul data-testid="inbox-counts">
            <li>
              <AnchorLink to={link({ inbox: undefined })} aria-current={!filters.inbox ? 'true' : undefined}>
                <span>All inboxes</span>
                <span className="muted">{inboxTotal}</span>
              </AnchorLink>
            </li>
            {inboxes.map((i) => (
              <li key={i.id}>
                <AnchorLink to={link({ inbox: i.id })} aria-current={filters.inbox === i.id ? 'true' : undefined}>
                  <span>
                    {i.name}
                    {i.failing !== null ? (
                      <span className="pill pill-off" title={i.failing} data-testid="inbox-failing">
                        {' '}
                        Failing
                      </span>
                    ) : null}
                  </span>
                  <span className="muted">{counts.byInbox[i.id] ?? 0}</span>
                </AnchorLink>
              </li>
            ))}
          </ul>
          <h2>Filters</h2>
          <Form method="get" action="/inbox" key={location.search} data-testid="filters">
            {filters.status ? <input type="hidden" name="status" value={filters.status} /> : null}
            {filters.inbox ? <input type="hidden" name="inbox" value={filters.inbox} /> : null}
            {filters.sort ? <input type="hidden" name="sort" value={filters.sort} /> : null}
            {filters.dir ? <input type="hidden" name="dir" value={filters.dir} /> : null}
            <div className="field">
              <label htmlFor="f-q">Search</label>
              <input id="f-q" type="search" name="q" defaultValue={filters.q ?? ''} placeholder="Subject, text, contact, #id" />
            </div>
            <FilterSelect
              id="assignee"
              label="Assignee"
              value={filters.assignee}
              options={[
                { value: 'mine', label: 'Mine' },
                { value: 'unassigned', label: 'Unassigned' },
                ...users.map((u) => ({ value: String(u.id), label: u.name })),
              ]}
            />
            <FilterSelect id="team" label="Team" value={filters.team} options={teams.map((t) => ({ value: String(t.id), label: t.name }))} />
            <FilterSelect id="priority" label="Priority" value={filters.priority} options={PRIORITY_CHOICES} />
            <FilterSelect id="tag" label="Tag" value={filters.tag} options={tags.map((t) => ({ value: String(t.id), label: t.name }))} />
            <FilterSelect id="source" label="Channel" value={filters.source} options={SOURCE_CHOICES} />
            <div className="row">
              <button type="submit" className="btn btn-primary">
                Apply
              </button>
              <Link to="/inbox">Clear</Link>
            </div>
          </Form>
        </details>
      </aside>

      <div className="inbox-main">
        <div className="row">
          <h1>Inbox</h1>
          <span className="muted" data-testid="total">
            {list.totalCapped ? `${list.total.toLocaleString('en')}+` : list.total} {list.total === 1 && !list.totalCapped ? 'conversation' : 'conversations'}
          </span>
        </div>
        <BulkForm key={location.key} canManage={canManage} users={users} tags={tags} inboxes={inboxes} lastResult={actionData?.result}>
          {(selected) => (
            <div className="table-wrap">
              <table className="table convs" data-testid="conversations">
                <thead>
                  <tr>
                    {canManage ? <SelectAllHeader /> : null}
                    <th>Contact</th>
                    <th>Conversation</th>
                    <th>Inbox</th>
                    <th>Assignee</th>
                    <SortHeader column="priority" label="Priority" />
                    <th>Tags</th>
                    <th>Status</th>
                    <th>SLA</th>
                    <SortHeader column="last_message" label="Last message" />
                    <SortHeader column="created" label="Created" />
                  </tr>
                </thead>
                <tbody>
                  {list.rows.map((r) => {
                    const contact = personName(r.contactFirstName, r.contactLastName, r.contactEmail);
                    return (
                      <tr key={r.id} data-testid={`conversation-${r.id}`}>
                        {canManage ? (
                          <td>
                            <input type="checkbox" name="ids" value={r.id} defaultChecked={selected.has(String(r.id))} aria-label={`Select #${r.id}`} />
                          </td>
                        ) : null}
                        <td title={r.contactEmail ?? undefined}>{contact}</td>
                        <td className="c-subj">
                          <AnchorLink to={`/inbox/${r.id}`}>{r.subject || '(no subject)'}</AnchorLink>
                          <span className="c-prev">{r.lastMessagePreview}</span>
                        </td>
                        <td>{r.inboxName}</td>
                        <td>{personName(r.assigneeFirstName, r.assigneeLastName) || <span className="muted">—</span>}</td>
                        <td>
                          <PriorityPill priority={r.priority} />
                        </td>
                        <td>
                          {r.tags.map((t) => (
                            <TagPill key={t.id} name={t.name} color={t.color} />
                          ))}
                        </td>
                        <td>
                          <StatusPill status={r.status} />
                        </td>
                        <td className="nowrap">
                          <SlaPill sla={r} format={(d) => formatDateTime(d, prefs)} />
                        </td>
                        <td className="nowrap">{formatDateTime(r.lastMessageAt, prefs)}</td>
                        <td className="nowrap muted">{formatDateTime(r.createdAt, prefs)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </BulkForm>
        {list.rows.length === 0 ? <p className="muted">No conversations match these filters.</p> : null}
        <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
      </div>
    </div>
  );
}

function FilterSelect({
  id,
  label,
  value,
  options,
}: {
  id: string;
  label: string;
  value: string | number | undefined;
  options: { value: string; label: string }[];
}) {
  return (
    <div className="field">
      <label htmlFor={`f-${id}`}>{label}</label>
      <select id={`f-${id}`} name={id} defaultValue={value === undefined ? '' : String(value)}>
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

/** "Select all" only exists with JavaScript: without it, it could not do anything. */
function SelectAllHeader() {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return (
    <th>
      {mounted ? (
        <input
          type="checkbox"
          aria-label="Select all"
          onChange={(e) => {
            for (const box of e.currentTarget.form?.querySelectorAll<HTMLInputElement>('input[name="ids"]') ?? []) box.checked = e.currentTarget.checked;
          }}
        />
      ) : null}
    </th>
  );
}

type Option = { id: number; name: string };

/**
 * The selection and its mass actions in one form: each action's button submits its own intent with the
 * ticked ids; delete asks first (the shared confirmation, submitting this same form).
 */
function BulkForm({
  canManage,
  users,
  tags,
  inboxes,
  lastResult,
  children,
}: {
  canManage: boolean;
  users: Option[];
  tags: Option[];
  inboxes: Option[];
  lastResult: SubmissionResult<string[]> | undefined;
  children: (selected: Set<string>) => React.ReactNode;
}) {
  const [form] = useForm({ id: 'bulk', lastResult });
  const submitted = lastResult?.initialValue?.ids;
  const selected = new Set((Array.isArray(submitted) ? submitted : submitted ? [submitted] : []).map(String));
  if (!canManage) return <>{children(selected)}</>;
  const errors = [...new Set(Object.values(form.allErrors).flat())];
  return (
    <Form method="post" {...getFormProps(form)}>
      <div className="bulk" data-testid="bulk-actions">
        <strong>Selected:</strong>
        <BulkSelect
          name="assigneeId"
          label="Assign to"
          options={[{ value: 'none', label: 'Unassigned' }, ...users.map((u) => ({ value: String(u.id), label: u.name }))]}
        />
        <button className="btn" name="intent" value="assign">
          Assign
        </button>
        <BulkSelect name="status" label="Status" options={STATUS_CHOICES.map((s) => ({ value: s, label: s }))} />
        <button className="btn" name="intent" value="status">
          Set status
        </button>
        <BulkSelect name="priority" label="Priority" options={PRIORITY_CHOICES} />
        <button className="btn" name="intent" value="priority">
          Set priority
        </button>
        <BulkSelect name="tagId" label="Tag" options={tags.map((t) => ({ value: String(t.id), label: t.name }))} />
        <button className="btn" name="intent" value="tag">
          Add tag
        </button>
        <BulkSelect name="inboxId" label="Move to" options={inboxes.map((i) => ({ value: String(i.id), label: i.name }))} />
        <button className="btn" name="intent" value="move">
          Move
        </button>
        <DeleteConfirm id="bulk-delete" form={form.id} intent="delete" label="Delete" />
      </div>
      <ErrorList id={form.errorId} errors={errors} />
      {children(selected)}
    </Form>
  );
}

function BulkSelect({ name, label, options }: { name: string; label: string; options: { value: string; label: string }[] }) {
  return (
    <select name={name} aria-label={label} defaultValue="">
      <option value="">{label}…</option>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
