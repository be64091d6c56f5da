import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { IMPORT_STATUS_LABELS } from '~/models/crm/imports-constants';
import { listImports, readImportUpload, storeImportUpload } from '~/models/crm/imports.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { can, publicUser, requirePermission } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'import_contacts');
  const imports = await listImports({ accountId: ctx.account.id, limit: 20 });
  return { user: publicUser(ctx), imports, canExport: can(ctx, 'export_contacts') };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'import_contacts');
  const upload = await readImportUpload(request);
  if (!upload.ok) return data({ error: upload.error }, { status: 400 });
  const stored = await storeImportUpload({ accountId: ctx.account.id, userId: ctx.user.id, filename: upload.filename, bytes: upload.bytes });
  if (!stored.ok) return data({ error: stored.error }, { status: 400 });
  return redirect(`/customers/import/${stored.importId}`);
}

export const handle = { breadcrumb: 'Import' };

export default function ImportContacts() {
  const { user, imports, canExport } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  return (
    <div className="page stack">
      <div className="row">
        <h1>Import contacts</h1>
        <div className="spacer" />
        {canExport ? (
          <a className="btn" href="/customers/export" download>
            Export contacts (CSV)
          </a>
        ) : null}
      </div>
      <Form method="post" encType="multipart/form-data" className="card stack" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload a file</h2>
        <p className="muted">A CSV or Excel (.xlsx) file of at most 10 MB, with a header row. You choose which column is which on the next step.</p>
        <div className="field">
          <label htmlFor="import-file">File</label>
          <input id="import-file" type="file" name="file" accept=".csv,text/csv,.xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" required aria-invalid={actionData?.error ? true : undefined} aria-describedby={actionData?.error ? 'import-file-error' : undefined} />
          {actionData?.error ? (
            <p id="import-file-error" className="field-error" role="alert">
              {actionData.error}
            </p>
          ) : null}
        </div>
        <div className="row">
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Upload
          </button>
        </div>
      </Form>
      <section className="stack">
        <h2>Recent imports</h2>
        {imports.length === 0 ? (
          <p className="muted" data-testid="empty">
            No imports yet.
          </p>
        ) : (
          <table className="table" data-testid="imports">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Status</th>
                <th scope="col">Rows</th>
                <th scope="col">Created</th>
                <th scope="col">Updated</th>
                <th scope="col">Failed</th>
                <th scope="col">Uploaded</th>
              </tr>
            </thead>
            <tbody>
              {imports.map((imp) => (
                <tr key={imp.id}>
                  <td>
                    <Link to={`/customers/import/${imp.id}`}>{imp.filename}</Link>
                  </td>
                  <td>{IMPORT_STATUS_LABELS[imp.status]}</td>
                  <td>{imp.totalRows}</td>
                  <td>{imp.createdRows}</td>
                  <td>{imp.updatedRows}</td>
                  <td>{imp.failedRows}</td>
                  <td>{formatDateTime(imp.createdAt, user)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Import contacts', 'Customers') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
