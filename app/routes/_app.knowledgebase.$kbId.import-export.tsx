import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react';
import { Download, Lock } from 'lucide-react';
import { useEffect } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { discardUpload, EXPORT_FILE_MAX_BYTES, receiveArchiveUpload } from '~/models/knowledge-base/archive.server';
import { importArchive } from '~/models/knowledge-base/import-export.server';
import { ZendeskImportSchema } from '~/models/knowledge-base/portability-schemas';
import { listKbImports, startZendeskImport } from '~/models/knowledge-base/zendesk.server';
import { FEATURE_DENIED_MESSAGE } from '~/models/plans/catalogue';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { can, canUseFeature, publicUser, requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Plan feature importExport and permission customize_docs (ADR 059): the page shows the locks; the server refuses. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  const imports = await listKbImports({ ...scope, limit: 5 });
  return {
    user: publicUser(ctx),
    kbId: kb.id,
    planLocked: !canUseFeature(ctx, 'knowledgeBase/importExport'),
    locked: !can(ctx, 'customize_docs'),
    maxMb: Math.round(EXPORT_FILE_MAX_BYTES / 1024 / 1024),
    imports: imports.map((i) => ({
      id: i.id,
      url: i.url,
      locale: i.locale,
      status: i.status,
      fetched: i.fetched,
      result: i.result,
      message: i.message,
      createdAt: i.createdAt,
      finishedAt: i.finishedAt,
    })),
  };
}

function countsText(c: Record<string, number>) {
  return `${c.articlesCreated} created, ${c.articlesUpdated} updated, ${c.articlesUnchanged} unchanged${
    c.articlesSkipped ? `, ${c.articlesSkipped} skipped (in the trash)` : ''
  }; categories: ${c.categoriesCreated} created, ${c.categoriesUpdated} updated${c.imagesAdded ? `; ${c.imagesAdded} images copied` : ''}`;
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/importExport', ctx);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const page = `/knowledgebase/${kb.id}/import-export`;
  const upload = await receiveArchiveUpload(request, { fileField: 'file', maxBytes: EXPORT_FILE_MAX_BYTES });
  try {
    // An upload refused before its fields were read (too large) is the file form's, and gets its message.
    const intent = upload.fields.get('intent') ?? (upload.error ? 'import-file' : null);
    if (intent === 'import-file') {
      if (upload.error || !upload.file) return data({ form: 'file' as const, error: upload.error ?? 'Choose a file to upload', reply: null }, { status: 400 });
      const result = await importArchive({ ...who, file: upload.file.path, source: 'file' });
      if (!result.ok) return data({ form: 'file' as const, error: result.error, reply: null }, { status: 400 });
      return redirectWithToast(page, { type: 'success', text: `Import done: ${countsText(result.counts)}` });
    }
    if (intent === 'import-zendesk') {
      const submission = parseWithZod(upload.fields, { schema: ZendeskImportSchema });
      if (submission.status !== 'success') return data({ form: 'zendesk' as const, error: null, reply: submission.reply() }, { status: 400 });
      const started = await startZendeskImport({ ...who, url: submission.value.url, locale: submission.value.locale });
      if (!started.ok) {
        const reply =
          started.field === 'url' ? submission.reply({ fieldErrors: { url: [started.message] } }) : submission.reply({ formErrors: [started.message] });
        return data({ form: 'zendesk' as const, error: null, reply }, { status: 400 });
      }
      return redirectWithToast(page, { type: 'info', text: 'Import started: its progress shows below' });
    }
    throw new Response('Unknown intent', { status: 400 });
  } finally {
    await discardUpload(upload);
  }
}

export const handle = { breadcrumb: () => 'Import & Export' };

const STATUS_LABELS = { queued: 'Waiting', running: 'Importing', done: 'Done', failed: 'Failed' } as const;

export default function ImportExport() {
  const { user, kbId, planLocked, locked, maxMb, imports } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  const [form, fields] = useForm<{ url: string; locale: string }>({
    id: 'kb-import-zendesk',
    lastResult: actionData?.form === 'zendesk' ? actionData.reply : null,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const disabled = locked || planLocked;
  const inProgress = imports.some((i) => i.status === 'queued' || i.status === 'running');
  // With JavaScript the progress refreshes itself; without, the "Check progress" link reloads the page.
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!inProgress) return;
    const timer = setInterval(() => {
      if (revalidator.state === 'idle') revalidator.revalidate();
    }, 2000);
    return () => clearInterval(timer);
  }, [inProgress, revalidator]);
  const fileError = actionData?.form === 'file' ? actionData.error : null;
  return (
    <SettingsPage
      title="Import & Export"
      subHeader="Move articles and categories in and out of this knowledge base, as a file or straight from a Zendesk help centre."
      learnMore="/help-center"
      locked={locked}
    >
      {planLocked ? (
        <p className="locked-note" data-testid="plan-locked">
          <Lock aria-hidden="true" size={14} /> {FEATURE_DENIED_MESSAGE}
        </p>
      ) : null}
      <section className="stack" aria-labelledby="export-title">
        <h2 id="export-title">Export</h2>
        <p className="muted">
          A file (.jsonl, one JSON record per line) with the categories and the articles that are not in the trash: titles, slugs, bodies, search-engine fields
          and whether each is published, and the images they show. Versions, feedback and settings are not in it (a backup has them).
        </p>
        <div className="row">
          {disabled ? (
            <button type="button" className="btn" disabled title={planLocked ? FEATURE_DENIED_MESSAGE : undefined}>
              <Lock aria-hidden="true" size={14} /> Export articles
            </button>
          ) : (
            <a className="btn btn-primary" href={`/knowledgebase/${kbId}/import-export/export`} download data-testid="export-articles">
              <Download aria-hidden="true" size={14} /> Export articles
            </a>
          )}
        </div>
      </section>
      <hr />
      <Form method="post" encType="multipart/form-data" className="stack" aria-labelledby="import-file-title">
        <h2 id="import-file-title">Import a file</h2>
        <p className="muted">
          An export file of Parley (or a backup). It is merged by slug: an article or category with the same slug is updated, others are added; nothing is
          deleted.
        </p>
        <fieldset disabled={disabled} className="stack" style={{ minWidth: 0 }}>
          <div className="field">
            <label htmlFor="kb-import-file">File</label>
            <input
              id="kb-import-file"
              type="file"
              style={{ maxWidth: '100%' }}
              name="file"
              accept=".jsonl,.json,.gz,application/json,application/gzip"
              required
              aria-invalid={fileError ? true : undefined}
              aria-describedby={fileError ? 'kb-import-file-error' : 'kb-import-file-hint'}
            />
            <small id="kb-import-file-hint" className="muted">
              At most {maxMb} MB. The format is described in the guide.
            </small>
            {fileError ? (
              <p id="kb-import-file-error" className="field-error" role="alert">
                {fileError}
              </p>
            ) : null}
          </div>
        </fieldset>
        <div className="actions">
          <button type="submit" className="btn btn-primary" name="intent" value="import-file" disabled={disabled || busy}>
            {disabled ? <Lock aria-hidden="true" size={14} /> : null} Import file
          </button>
        </div>
      </Form>
      <hr />
      <Form method="post" className="stack" {...getFormProps(form)} aria-labelledby="import-zendesk-title">
        <h2 id="import-zendesk-title">Import from Zendesk</h2>
        <p className="muted">
          The address of a Zendesk help centre, e.g. https://acme.zendesk.com/hc/en-us. Its public articles are read through Zendesk&apos;s Help Center API and
          merged like a file; each Zendesk section becomes a category. Images on the help centre&apos;s own address are copied into this knowledge base.
        </p>
        <fieldset disabled={disabled} className="stack" style={{ minWidth: 0 }}>
          <Field label="Help centre address" field={fields.url} type="url" placeholder="https://acme.zendesk.com/hc/en-us" />
          <Field label="Locale (optional; taken from the address, otherwise en-us)" field={fields.locale} placeholder="en-us" />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          <button type="submit" className="btn btn-primary" name="intent" value="import-zendesk" disabled={disabled || busy}>
            {disabled ? <Lock aria-hidden="true" size={14} /> : null} Start import
          </button>
        </div>
      </Form>
      {imports.length ? (
        <section className="stack" aria-labelledby="imports-title">
          <div className="row">
            <h2 id="imports-title">Recent imports</h2>
            <div className="spacer" />
            {inProgress ? (
              <Link to={`/knowledgebase/${kbId}/import-export`} className="btn" reloadDocument>
                Check progress
              </Link>
            ) : null}
          </div>
          <div role="status" aria-live="polite">
            <ul className="stack" data-testid="kb-imports">
              {imports.map((i) => (
                <li key={i.id} className="card">
                  <strong>{STATUS_LABELS[i.status]}</strong> · {i.url} ({i.locale}) · {formatDateTime(i.createdAt, user)}
                  <br />
                  {i.status === 'done' && i.result ? (
                    <span>Articles: {countsText(i.result)}.</span>
                  ) : i.status === 'failed' ? (
                    <span className="field-error">{i.message}. Nothing was imported.</span>
                  ) : (
                    <span>
                      Fetched {i.fetched.categories ?? 0} categories, {i.fetched.sections ?? 0} sections, {i.fetched.articles ?? 0} articles,{' '}
                      {i.fetched.images ?? 0} images…
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </div>
        </section>
      ) : null}
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Import & Export', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
