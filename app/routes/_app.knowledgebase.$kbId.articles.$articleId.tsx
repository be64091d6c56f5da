import { getFormProps, getTextareaProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useRichTextEditor } from '~/components/rich-text/use-rich-text-editor';
import { ArrowDown, ArrowUp, ExternalLink, History, ImagePlus } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { UnsavedChangesGuard } from '~/components/ui/unsaved-changes';
import { kbFeatures, requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import {
  createArticle,
  getArticle,
  listVersions,
  moveArticle,
  restoreArticle,
  trashArticle,
  unpublishArticle,
  updateArticle,
} from '~/models/knowledge-base/articles.server';
import { listCategories } from '~/models/knowledge-base/categories.server';
import { imageHtml, KbImageError, readImageForm, saveKbImage } from '~/models/knowledge-base/images.server';
import {
  articlePath,
  ARTICLE_TITLE_MAX,
  ArticleDraftSchema,
  ArticleSchema,
  KB_IMAGE_ACCEPT,
  KB_IMAGE_MESSAGES,
  SEO_DESCRIPTION_MAX,
  SEO_TITLE_MAX,
} from '~/models/knowledge-base/schemas';
import { FEATURE_DENIED_MESSAGE } from '~/models/plans/catalogue';
import { FieldInputError } from '~/models/productivity/shared.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, publicUser, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'view_articles') && !can(ctx, 'manage_articles')) await roleDenied(request);
  const id = readEditorParam(params.articleId);
  const article = id === 'new' ? null : await getArticle({ ...scope, id });
  if (article === undefined) throw new Response('Not Found', { status: 404 });
  const features = kbFeatures(ctx);
  const versions = article && features.versionControl ? (await listVersions({ ...scope, articleId: article.id }))?.versions ?? [] : [];
  const categories = await listCategories(scope);
  return {
    user: publicUser(ctx),
    kb: { id: kb.id, slug: kb.slug },
    article: article
      ? {
          id: article.id,
          title: article.title,
          slug: article.slug,
          categoryId: article.categoryId,
          body: article.bodyHtml,
          seoTitle: article.seoTitle,
          seoDescription: article.seoDescription,
          status: article.status,
          trashed: Boolean(article.trashedAt),
          publishedVersionId: article.publishedVersionId,
          publishedSlug: article.publishedSlug,
        }
      : null,
    versions: versions
      .slice(0, 20)
      .map((v) => ({ id: v.id, number: v.number, createdAt: v.createdAt, author: [v.authorFirstName, v.authorLastName].filter(Boolean).join(' ') })),
    versionCount: versions.length,
    categories: categories.map((c) => ({ value: String(c.id), label: c.name })),
    features,
    locked: !can(ctx, 'manage_articles'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'manage_articles')) await roleDenied(request);
  const id = readEditorParam(params.articleId);
  // The editor's form is multipart (it carries an image); the side actions are plain forms.
  const { fields: formData, file } = await readImageForm(request, { fileField: 'image' });
  const intent = formData.get('intent');
  const list = `/knowledgebase/${kb.id}/articles`;
  const here = (articleId: number) => `${list}/${articleId}`;
  const notFound = () => new Response('Not Found', { status: 404 });

  if (id !== 'new') {
    switch (intent) {
      case 'trash':
        if (!(await trashArticle({ ...who, id }))) throw notFound();
        return redirectWithToast(list, { type: 'info', text: 'Article moved to trash' });
      case 'restore':
        if (!(await restoreArticle({ ...who, id }))) throw notFound();
        return redirectWithToast(here(id), { type: 'info', text: 'Article Restored' });
      case 'unpublish':
        if (!(await unpublishArticle({ ...who, id }))) throw notFound();
        return redirectWithToast(here(id), { type: 'info', text: 'Article Unpublished' });
      case 'move-up':
      case 'move-down':
        if (!(await moveArticle({ ...who, id, direction: intent === 'move-up' ? 'up' : 'down' }))) throw notFound();
        return redirectWithToast(here(id), { type: 'info', text: 'Article Moved' });
    }
  }
  if (intent !== 'save' && intent !== 'publish' && intent !== 'upload-image') throw new Response('Unknown intent', { status: 400 });

  // An image (Upload image, or a file chosen before Save/Publish) is stored first and added to the end of the
  // body; any problem with it answers 400 on the image field with the whole draft shown back, nothing saved.
  if (file || intent === 'upload-image') {
    const draft = parseWithZod(formData, { schema: ArticleDraftSchema });
    if (!file) return data(draft.reply({ fieldErrors: { image: [KB_IMAGE_MESSAGES.missing] } }), { status: 400 });
    let image;
    try {
      image = await saveKbImage({ accountId: kb.accountId, knowledgeBaseId: kb.id, filename: file.filename, bytes: file.bytes, userId: ctx.user.id });
    } catch (err) {
      if (err instanceof KbImageError) return data(draft.reply({ fieldErrors: { image: [err.message] } }), { status: 400 });
      throw err;
    }
    const body = String(formData.get('body') ?? '').trimEnd();
    formData.set('body', body ? `${body}\n${imageHtml(image)}` : imageHtml(image));
    if (intent === 'upload-image') {
      return data({ ...parseWithZod(formData, { schema: ArticleDraftSchema }).reply(), uploadedImage: image.token });
    }
  }

  const submission = parseWithZod(formData, { schema: ArticleSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const { body, ...rest } = submission.value;
  const publish = intent === 'publish';
  try {
    if (id === 'new') {
      const article = await createArticle({ ...who, ...rest, body, publish });
      return redirectWithToast(here(article.id), publish ? 'Article Published' : 'Article Created');
    }
    const article = await updateArticle({ ...who, id, ...rest, body, publish });
    if (!article) throw notFound();
    return redirectWithToast(here(id), { type: 'info', text: publish ? 'Article Published' : 'Article Updated' });
  } catch (err) {
    if (err instanceof FieldInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { article: { title: string } | null } | undefined) => (loaderData ? loaderData.article?.title ?? 'New Article' : null),
};

export default function ArticlePage() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // After an upload without the rich editor the form is drawn again from the returned draft (the body with the image).
  const uploaded = actionData && 'uploadedImage' in actionData ? actionData.uploadedImage : '';
  return <ArticleEditor key={`${loaderData.article?.id ?? 'new'}-${uploaded}`} {...loaderData} />;
}

function ArticleEditor({ user, kb, article, versions, versionCount, categories, features, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<{ title: string; categoryId: string; slug: string; body: string; seoTitle: string; seoDescription: string; image: string }>({
    id: `article-${article?.id ?? 'new'}`,
    lastResult,
    defaultValue: article
      ? {
          title: article.title,
          categoryId: article.categoryId ? String(article.categoryId) : '',
          slug: article.slug,
          body: article.body,
          seoTitle: article.seoTitle ?? '',
          seoDescription: article.seoDescription ?? '',
        }
      : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const base = `/knowledgebase/${kb.id}/articles`;
  const { key: bodyKey, ...bodyProps } = getTextareaProps(fields.body, { ariaAttributes: true });
  const live = article?.status === 'published' && !article.trashed && article.publishedSlug;
  const rich = useRichTextEditor(fields.body.id, !locked && !article?.trashed, { label: 'Body', accept: KB_IMAGE_ACCEPT, upload: (file) => uploadImage(kb.id, file) }, [kb.id]);
  return (
    <section className="settings-page">
      <header className="row">
        <h1>
          {article ? 'Edit Article' : 'New Article'} {locked ? <DeniedBadge kind="role" /> : null}
        </h1>
        {article ? (
          <span className="kb-status" data-status={article.trashed ? 'trash' : article.status}>
            {article.trashed ? 'Trash' : article.status === 'published' ? 'Published' : 'Draft'}
          </span>
        ) : null}
        <div className="spacer" />
        {live ? (
          <a href={articlePath(kb.slug, { id: article.id, slug: article.publishedSlug! })} target="_blank" rel="noreferrer" className="btn">
            <ExternalLink aria-hidden="true" size={14} /> View public page
          </a>
        ) : null}
      </header>
      {locked ? (
        <p className="locked-note" data-testid="locked-note">
          {ROLE_LOCKED_MESSAGE}
        </p>
      ) : null}
      <div className="kb-editor">
        <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="card stack">
          <fieldset disabled={locked || article?.trashed} className="stack">
            <Field label="Title" field={fields.title} autoComplete="off" hint={`At most ${ARTICLE_TITLE_MAX} characters`} />
            <SelectField label="Category" field={fields.categoryId} options={categories} placeholder="No category" />
            <div className="field">
              <label htmlFor={fields.body.id}>Body (HTML)</label>
              <textarea key={bodyKey} {...bodyProps} className="kb-body" rows={16} />
              <small className="muted">Paragraphs, headings, lists, links, images, tables and code. Scripts, frames and forms are removed when saved.</small>
              <ErrorList id={fields.body.errorId} errors={fields.body.errors} />
            </div>
            <div className="field kb-image-upload" hidden={rich}>
              <label htmlFor={fields.image.id}>Image</label>
              <div className="row">
                <input
                  type="file"
                  id={fields.image.id}
                  name={fields.image.name}
                  accept={KB_IMAGE_ACCEPT}
                  aria-invalid={fields.image.errors ? true : undefined}
                  aria-describedby={fields.image.errors ? fields.image.errorId : `${fields.image.id}-hint`}
                />
                <button type="submit" name="intent" value="upload-image" className="btn" formNoValidate>
                  <ImagePlus aria-hidden="true" size={14} /> Upload image
                </button>
              </div>
              <small className="muted" id={`${fields.image.id}-hint`}>
                PNG, JPEG, GIF or WebP, at most 5 MB. It is added at the end of the body; your other changes are kept.
              </small>
              <ErrorList id={fields.image.errorId} errors={fields.image.errors} />
            </div>
            <details>
              <summary>Address and search engines</summary>
              <div className="stack">
                <Field label="Slug" field={fields.slug} autoComplete="off" hint="Lower-case words joined by hyphens; from the title when empty" />
                <Field label="SEO title" field={fields.seoTitle} autoComplete="off" hint={`3 to ${SEO_TITLE_MAX} characters; the title when empty`} />
                <Field label="SEO description" field={fields.seoDescription} autoComplete="off" hint={`3 to ${SEO_DESCRIPTION_MAX} characters`} />
              </div>
            </details>
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="actions">
            {locked ? null : <UnsavedChangesGuard />}
            <Link to={base} className="btn">
              Cancel
            </Link>
            <button
              type="submit"
              className="btn"
              name="intent"
              value="save"
              disabled={locked || article?.trashed}
              title={locked ? ROLE_LOCKED_MESSAGE : undefined}
            >
              {article ? 'Save draft' : 'Create draft'}
            </button>
            <button
              type="submit"
              className="btn btn-primary"
              name="intent"
              value="publish"
              disabled={locked || article?.trashed}
              title={locked ? ROLE_LOCKED_MESSAGE : undefined}
            >
              Publish
            </button>
          </div>
        </Form>
        {article ? (
          <aside className="kb-side" aria-label="Article actions">
            {locked ? null : (
              <Form method="post" className="card stack">
                <h2>Actions</h2>
                {article.trashed ? (
                  <button type="submit" name="intent" value="restore" className="btn">
                    Restore from trash
                  </button>
                ) : (
                  <>
                    {article.status === 'published' ? (
                      <button type="submit" name="intent" value="unpublish" className="btn">
                        Unpublish
                      </button>
                    ) : null}
                    {article.categoryId ? (
                      <div className="row">
                        <button type="submit" name="intent" value="move-up" className="btn">
                          <ArrowUp aria-hidden="true" size={14} /> Move up
                        </button>
                        <button type="submit" name="intent" value="move-down" className="btn">
                          <ArrowDown aria-hidden="true" size={14} /> Move down
                        </button>
                      </div>
                    ) : null}
                    <button type="submit" name="intent" value="trash" className="btn">
                      Move to trash
                    </button>
                  </>
                )}
              </Form>
            )}
            <section className="card" aria-labelledby="versions-title">
              <h2 id="versions-title">
                <History aria-hidden="true" size={16} /> Versions {features.versionControl ? null : <DeniedBadge kind="feature" />}
              </h2>
              {features.versionControl ? (
                <>
                  <ol reversed data-testid="versions">
                    {versions.map((v) => (
                      <li key={v.id}>
                        <Link to={`${base}/${article.id}/version/${v.id}`}>
                          Version {v.number}
                          {v.id === article.publishedVersionId ? ' (published)' : ''}
                        </Link>
                        <br />
                        <small className="muted">
                          {formatDateTime(v.createdAt, user)}
                          {v.author ? ` · ${v.author}` : ''}
                        </small>
                      </li>
                    ))}
                  </ol>
                  {versionCount >= 2 ? (
                    <Form method="get" action={`${base}/${article.id}/version-control/compare`} className="stack">
                      <CompareSelect name="a" label="Compare" versions={versions} defaultId={versions[1]?.id} />
                      <CompareSelect name="b" label="with" versions={versions} defaultId={versions[0]?.id} />
                      <button type="submit" className="btn">
                        Compare versions
                      </button>
                    </Form>
                  ) : null}
                </>
              ) : (
                <p className="muted">{FEATURE_DENIED_MESSAGE}</p>
              )}
            </section>
          </aside>
        ) : null}
      </div>
    </section>
  );
}

async function uploadImage(kbId: number, file: File): Promise<{ url: string; filename: string } | { error: string }> {
  const body = new FormData();
  body.append('image', file);
  const res = await fetch(`/knowledgebase/${kbId}/images`, { method: 'POST', body });
  if (res.headers.get('content-type')?.includes('application/json')) return res.json();
  return { error: res.status === 413 ? `${file.name} is larger than 5 MB` : 'The image could not be uploaded' };
}

function CompareSelect({ name, label, versions, defaultId }: { name: string; label: string; versions: { id: number; number: number }[]; defaultId?: number }) {
  return (
    <label className="stack">
      {label}
      <select name={name} defaultValue={defaultId}>
        {versions.map((v) => (
          <option key={v.id} value={v.id}>
            Version {v.number}
          </option>
        ))}
      </select>
    </label>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.article?.title ?? 'New Article', 'Knowledge Base') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
