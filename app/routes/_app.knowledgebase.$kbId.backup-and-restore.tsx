import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Download, Lock } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { BACKUP_MAX_BYTES, discardUpload, receiveArchiveUpload } from '~/models/knowledge-base/archive.server';
import { restoreBackup } from '~/models/knowledge-base/backup.server';
import { KB_NAME_MAX } from '~/models/knowledge-base/constants';
import { RestoreBackupSchema } from '~/models/knowledge-base/portability-schemas';
import { FEATURE_DENIED_MESSAGE } from '~/models/plans/catalogue';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, canUseFeature, requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Plan feature backupRestore and permission customize_docs (ADR 059): the page shows the locks; the server refuses. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  return {
    kbId: kb.id,
    kbName: kb.name,
    planLocked: !canUseFeature(ctx, 'knowledgeBase/backupRestore'),
    locked: !can(ctx, 'customize_docs'),
    maxMb: Math.round(BACKUP_MAX_BYTES / 1024 / 1024),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/backupRestore', ctx);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const upload = await receiveArchiveUpload(request, { fileField: 'backup', maxBytes: BACKUP_MAX_BYTES });
  try {
    const submission = parseWithZod(upload.fields, { schema: RestoreBackupSchema });
    // An upload refused before its fields were read (too large) still gets its message rather than a bare 400.
    const intent = upload.fields.get('intent') ?? (upload.error ? 'restore' : null);
    if (intent !== 'restore') throw new Response('Unknown intent', { status: 400 });
    if (submission.status !== 'success' || upload.error || !upload.file) {
      return data(submission.reply({ fieldErrors: upload.error ? { backup: [upload.error] } : {} }), { status: 400 });
    }
    const { target, name } = submission.value;
    const result = await restoreBackup({
      accountId: who.accountId,
      actorId: who.actorId,
      file: upload.file.path,
      target: target === 'this' ? { knowledgeBaseId: kb.id } : { newName: name || null },
      customCode: canUseFeature(ctx, 'knowledgeBase/customJavascript'),
    });
    if (!result.ok) return data(submission.reply({ fieldErrors: { backup: [result.error] } }), { status: 400 });
    const articles = result.counts.article ?? 0;
    const text = [`Backup Restored: ${articles} ${articles === 1 ? 'article' : 'articles'}`, ...result.notes].join(' ');
    return redirectWithToast(`/knowledgebase/${result.knowledgeBaseId}/articles`, { type: 'success', text });
  } finally {
    await discardUpload(upload);
  }
}

export const handle = { breadcrumb: () => 'Backup & Restore' };

export default function BackupAndRestore() {
  const { kbId, kbName, planLocked, locked, maxMb } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  const [form, fields] = useForm<{ target: string; name: string; confirm: boolean; backup: string }>({
    id: 'kb-restore',
    lastResult,
    defaultValue: { target: 'new' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const disabled = locked || planLocked;
  const backupErrors = fields.backup.errors;
  return (
    <SettingsPage
      title="Backup & Restore"
      subHeader="A backup is one file with everything in this knowledge base: settings, categories, articles with every version, feedback, redirect rules and images."
      learnMore="/help-center"
      locked={locked}
    >
      {planLocked ? (
        <p className="locked-note" data-testid="plan-locked">
          <Lock aria-hidden="true" size={14} /> {FEATURE_DENIED_MESSAGE}
        </p>
      ) : null}
      <section className="stack" aria-labelledby="backup-title">
        <h2 id="backup-title">Download a backup</h2>
        <p className="muted">A compressed file (.parley-kb.jsonl.gz) of {kbName} as it is now. Keep it somewhere safe; it holds drafts and settings.</p>
        <div className="row">
          {disabled ? (
            <button type="button" className="btn" disabled title={planLocked ? FEATURE_DENIED_MESSAGE : undefined}>
              <Lock aria-hidden="true" size={14} /> Download backup
            </button>
          ) : (
            <a className="btn btn-primary" href={`/knowledgebase/${kbId}/backup-and-restore/download`} download data-testid="download-backup">
              <Download aria-hidden="true" size={14} /> Download backup
            </a>
          )}
        </div>
      </section>
      <hr />
      <Form method="post" encType="multipart/form-data" className="stack" {...getFormProps(form)} aria-labelledby="restore-title">
        <h2 id="restore-title">Restore a backup</h2>
        <fieldset disabled={disabled} className="stack" style={{ minWidth: 0 }}>
          <div className="field">
            <label htmlFor="kb-restore-backup">Backup file</label>
            <input
              id="kb-restore-backup"
              type="file"
              style={{ maxWidth: '100%' }}
              name="backup"
              accept=".gz,application/gzip"
              required
              aria-invalid={backupErrors?.length ? true : undefined}
              aria-describedby={backupErrors?.length ? fields.backup.errorId : 'kb-restore-backup-hint'}
            />
            <small id="kb-restore-backup-hint" className="muted">
              A backup made by Parley, of this or any other knowledge base, at most {maxMb} MB.
            </small>
            <ErrorList id={fields.backup.errorId} errors={backupErrors} />
          </div>
          <fieldset className="stack" style={{ minWidth: 0 }}>
            <legend>Restore into</legend>
            <label className="check">
              <input {...getInputProps(fields.target, { type: 'radio', value: 'new' })} key="new" /> A new knowledge base
            </label>
            <label className="check">
              <input {...getInputProps(fields.target, { type: 'radio', value: 'this' })} key="this" /> This knowledge base ({kbName}): its categories, articles,
              versions, redirect rules and images are replaced
            </label>
            <ErrorList id={fields.target.errorId} errors={fields.target.errors} />
          </fieldset>
          <Field label="Name of the new knowledge base (optional; the backup's name otherwise)" field={fields.name} maxLength={KB_NAME_MAX} />
          <div className="field">
            <label className="check">
              <input {...getInputProps(fields.confirm, { type: 'checkbox' })} key="confirm" /> I understand that restoring into this knowledge base replaces its
              content
            </label>
            <ErrorList id={fields.confirm.errorId} errors={fields.confirm.errors} />
          </div>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          <button type="submit" className="btn btn-primary" name="intent" value="restore" disabled={disabled || busy}>
            {disabled ? <Lock aria-hidden="true" size={14} /> : null}
            {busy ? 'Restoring…' : 'Restore'}
          </button>
        </div>
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Backup & Restore', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
