import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useLiveRevalidation, useLiveWatch } from '~/components/shell/use-live';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ColumnMappingTable } from '~/components/crm/column-mapping';
import { ErrorList } from '~/components/ui/forms';
import { IMPORT_FIELD_LABELS, IMPORT_FIELDS, IMPORT_STATUS, IMPORT_STATUS_LABELS } from '~/models/crm/imports-constants';
import { ImportMappingSchema } from '~/models/crm/imports.schemas';
import { awaitingMapping, getImport, listImportErrors, previewImport, startImport } from '~/models/crm/imports.server';
import { countLabel, formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'import_contacts');
  const id = parseRouteId(params.importId);
  const imp = id === null ? undefined : await getImport({ accountId: ctx.account.id, id });
  if (!imp) throw new Response('Not Found', { status: 404 });
  const preview = awaitingMapping(imp) ? await previewImport({ accountId: ctx.account.id, id: imp.id }) : undefined;
  const errors = imp.failedRows > 0 ? await listImportErrors({ accountId: ctx.account.id, importId: imp.id, limit: 50 }) : [];
  return {
    user: publicUser(ctx),
    imp,
    preview: preview ? { header: preview.header, rows: preview.rows, guesses: preview.guesses } : null,
    errors,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'import_contacts');
  const id = parseRouteId(params.importId);
  const imp = id === null ? undefined : await getImport({ accountId: ctx.account.id, id });
  if (!imp) throw new Response('Not Found', { status: 404 });
  const formData = await request.formData();
  if (formData.get('intent') !== 'start') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ImportMappingSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const preview = await previewImport({ accountId: ctx.account.id, id: imp.id });
  if (!preview || submission.value.mapping.length !== preview.header.length) {
    return data(submission.reply({ formErrors: ['Choose a field for every column of the file'] }), { status: 400 });
  }
  const started = await startImport({ accountId: ctx.account.id, id: imp.id, ...submission.value });
  if (!started) return redirectWithToast(`/customers/import/${imp.id}`, { type: 'info', text: 'This import has already started' });
  return redirectWithToast(`/customers/import/${imp.id}`, 'Imported successfully');
}

export const handle = { breadcrumb: 'Import' };

export default function ImportDetail() {
  const { imp, preview } = useLoaderData<typeof loader>();
  return (
    <div className="page stack">
      <div className="row">
        <h1>Import: {imp.filename}</h1>
        <div className="spacer" />
        <Link to="/customers/import">All imports</Link>
      </div>
      {preview ? <MappingStep /> : <ProgressStep />}
    </div>
  );
}

function MappingStep() {
  const { preview } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    defaultValue: { mapping: preview!.guesses, duplicateMode: 'skip' },
    shouldValidate: 'onSubmit',
  });
  const columns = fields.mapping.getFieldList();
  const options = IMPORT_FIELDS.map((f) => ({ value: f, label: IMPORT_FIELD_LABELS[f] }));
  const { header, rows } = preview!;
  return (
    <Form method="post" {...getFormProps(form)} className="stack">
      <section className="card stack">
        <h2>Map the columns</h2>
        <p className="muted">Choose which contact field each column of the file fills. Rows need an email or a name.</p>
        <ErrorList id={fields.mapping.errorId} errors={fields.mapping.errors} />
        <ColumnMappingTable header={header} rows={rows} columns={columns} fallback={fields.mapping} options={options} />
      </section>
      <fieldset className="card stack">
        <legend>When a contact with the same email already exists</legend>
        <label className="check">
          <input type="radio" name={fields.duplicateMode.name} value="skip" defaultChecked={fields.duplicateMode.initialValue !== 'update'} /> Skip the row
        </label>
        <label className="check">
          <input type="radio" name={fields.duplicateMode.name} value="update" defaultChecked={fields.duplicateMode.initialValue === 'update'} /> Update the contact
        </label>
        <ErrorList id={fields.duplicateMode.errorId} errors={fields.duplicateMode.errors} />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="row">
        <button type="submit" className="btn btn-primary" name="intent" value="start">
          Import
        </button>
        <Link to="/customers/import" className="btn">
          Cancel
        </Link>
      </div>
    </Form>
  );
}

function ProgressStep() {
  const { imp, errors, user } = useLoaderData<typeof loader>();
  useLiveWatch(`import:${imp.id}`);
  useLiveRevalidation((m) => m.type === 'import.progress' && m.importId === imp.id);
  const done = imp.status === IMPORT_STATUS.readyForImport;
  const skipped = imp.processedRows - imp.createdRows - imp.updatedRows - imp.failedRows;
  return (
    <>
      <section className="card stack" aria-labelledby="progress-title">
        <h2 id="progress-title">
          Status: <span data-testid="import-status">{IMPORT_STATUS_LABELS[imp.status]}</span>
        </h2>
        <label htmlFor="import-progress">
          {imp.processedRows} of {countLabel(imp.totalRows, 'row')} processed
        </label>
        <progress id="import-progress" max={Math.max(1, imp.totalRows)} value={imp.processedRows} />
        <dl className="stack" data-testid="import-counts">
          <div>
            <dt>Created</dt>
            <dd>{imp.createdRows}</dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>{imp.updatedRows}</dd>
          </div>
          <div>
            <dt>Skipped (duplicates)</dt>
            <dd>{Math.max(0, skipped)}</dd>
          </div>
          <div>
            <dt>Failed</dt>
            <dd>{imp.failedRows}</dd>
          </div>
        </dl>
        {done ? (
          <p data-testid="import-done">
            Imported successfully{imp.finishedAt ? ` on ${formatDateTime(imp.finishedAt, user)}` : ''}.
          </p>
        ) : (
          <p className="muted">
            The import runs in the background; this page updates by itself. <Link to=".">Refresh</Link>
          </p>
        )}
      </section>
      {imp.failedRows > 0 ? (
        <section className="stack" aria-labelledby="failures-title">
          <div className="row">
            <h2 id="failures-title">Rows that failed</h2>
            <div className="spacer" />
            <a className="btn" href={`/customers/import/${imp.id}/failures`} download>
              Download failed rows (CSV)
            </a>
          </div>
          <table className="table" data-testid="import-errors">
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {errors.map((e) => (
                <tr key={e.id}>
                  <td>{e.rowNumber}</td>
                  <td>{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {imp.failedRows > errors.length ? <p className="muted">The first {errors.length} of {imp.failedRows} are shown; the download has them all.</p> : null}
        </section>
      ) : null}
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Import contacts', 'Customers') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
