import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList } from '~/components/ui/forms';
import { Pager, readPage } from '~/components/ui/pager';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { countPrunableVersions, listRecentVersions, saveVersionSettings } from '~/models/knowledge-base/help-settings.server';
import { VERSIONS_KEPT_MAX, VERSIONS_KEPT_MIN, VERSIONS_PAGE_SIZE, VersionSettingsSchema } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * Version Control (plan feature versionControl, ADR 058): the knowledge base's recent article versions, paged, with
 * links to each version and to its compare with the one before; and how many versions each article keeps.
 * Without the feature the page is refused (403 with the plan message) and so is saving.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/versionControl', ctx);
  if (!can(ctx, 'view_articles') && !can(ctx, 'manage_articles')) await roleDenied(request);
  const page = readPage(new URL(request.url));
  const { rows, total } = await listRecentVersions({ ...scope, page, pageSize: VERSIONS_PAGE_SIZE });
  return {
    user: publicUser(ctx),
    kbId: kb.id,
    versionsKept: kb.versionsKept,
    versions: rows.map((r) => ({
      id: r.id,
      number: r.number,
      title: r.title,
      createdAt: r.createdAt,
      articleId: r.articleId,
      articleTitle: r.articleTitle,
      published: r.id === r.publishedVersionId,
      trashed: r.trashed,
      previousId: r.previousId,
      author: [r.authorFirstName, r.authorLastName].filter(Boolean).join(' '),
    })),
    page,
    total,
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/versionControl', ctx);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const submission = parseWithZod(await request.formData(), { schema: VersionSettingsSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const keep = submission.value.versionsKept ?? null;
  // Lowering the limit deletes history for good: the agent confirms it, knowing how much.
  if (keep !== null && !submission.value.confirmRemoval) {
    const n = await countPrunableVersions({ accountId: who.accountId, knowledgeBaseId: kb.id, keep });
    if (n > 0) {
      return data(
        submission.reply({
          fieldErrors: {
            confirmRemoval: [`Keeping ${keep} versions removes ${n} older ${n === 1 ? 'version' : 'versions'} for good. Tick the box to confirm.`],
          },
        }),
        { status: 400 },
      );
    }
  }
  await saveVersionSettings({ accountId: who.accountId, actorId: who.actorId, id: kb.id, versionsKept: keep });
  return redirectWithToast(`/knowledgebase/${kb.id}/version-control`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: () => 'Version Control' };

export default function VersionControl() {
  const { user, kbId, versionsKept, versions, page, total, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'kb-versions',
    lastResult,
    defaultValue: { versionsKept: versionsKept ? String(versionsKept) : '', confirmRemoval: false },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const base = `/knowledgebase/${kbId}/articles`;
  const { key: keepKey, ...keepProps } = getInputProps(fields.versionsKept, { type: 'number', ariaAttributes: true });
  const { key: confirmKey, ...confirmProps } = getInputProps(fields.confirmRemoval, { type: 'checkbox', ariaAttributes: true });
  return (
    <SettingsPage
      title="Version Control"
      subHeader="Every save of an article is a version. The newest saves of the whole knowledge base, and how long versions are kept."
      learnMore="/help-center"
      locked={locked}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <legend>Versions kept per article</legend>
          <div className="field">
            <label htmlFor={fields.versionsKept.id}>Number of versions to keep</label>
            <input key={keepKey} {...keepProps} min={VERSIONS_KEPT_MIN} max={VERSIONS_KEPT_MAX} step={1} inputMode="numeric" />
            <small className="muted">
              Empty keeps every version. With a number, the oldest versions beyond it are removed at each save; the published version is always kept.
            </small>
            <ErrorList id={fields.versionsKept.errorId} errors={fields.versionsKept.errors} />
          </div>
          {fields.confirmRemoval.errors ? (
            <div className="field">
              <label className="check">
                <input key={confirmKey} {...confirmProps} /> Remove the older versions
              </label>
              <ErrorList id={fields.confirmRemoval.errorId} errors={fields.confirmRemoval.errors} />
            </div>
          ) : null}
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={base} locked={locked} />
      </Form>
      <h2 id="recent-versions">Recent versions</h2>
      {versions.length === 0 ? (
        <p data-testid="empty">No article has been saved yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-labelledby="recent-versions" data-testid="recent-versions">
            <thead>
              <tr>
                <th scope="col">Article</th>
                <th scope="col">Version</th>
                <th scope="col">Saved by</th>
                <th scope="col">When</th>
                <th scope="col">
                  <span className="visually-hidden">Compare</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.id}>
                  <td>
                    <Link to={`${base}/${v.articleId}`}>{v.articleTitle}</Link>
                    {v.trashed ? <span className="kb-status"> Trash</span> : null}
                    {v.title !== v.articleTitle ? <small className="muted"> (saved as “{v.title}”)</small> : null}
                  </td>
                  <td>
                    <Link to={`${base}/${v.articleId}/version/${v.id}`} aria-label={`Version ${v.number} of ${v.articleTitle}`}>
                      Version {v.number}
                    </Link>
                    {v.published ? (
                      <span className="kb-status" data-status="published">
                        {' '}
                        Published
                      </span>
                    ) : null}
                  </td>
                  <td>{v.author || '—'}</td>
                  <td>{formatDateTime(v.createdAt, user)}</td>
                  <td>
                    {v.previousId ? (
                      <Link
                        to={`${base}/${v.articleId}/version-control/${v.previousId}-${v.id}`}
                        aria-label={`Compare with previous: version ${v.number} of ${v.articleTitle}`}
                      >
                        Compare with previous
                      </Link>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pageSize={VERSIONS_PAGE_SIZE} total={total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Version Control', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
