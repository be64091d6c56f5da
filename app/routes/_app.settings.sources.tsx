import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { IMPORTING_KINDS, REVIEW_SOURCE_KINDS, SOURCE_KIND_LABELS, type ReviewSourceKind } from '~/models/reviews/constants';
import { createSource, deleteSource, disconnectGoogleSource, getSource, GoogleConnectError, googleSourceConsentUrl, importSourceReviews, listSources, updateSource } from '~/models/reviews/reviews.server';
import { googleOAuth2 } from '~/utils/oauth2.server';
import { ReviewSourceSchema } from '~/models/reviews/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const HERE = '/settings/sources';

/** Settings → Reviews → Sources: the account's review page(s) and external profiles (ADR 068). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requireUser(request));
  const url = new URL(request.url);
  const sources = await listSources({ accountId: ctx.account.id });
  const editParam = url.searchParams.get('source');
  const editId = parseRowId(editParam);
  const editing = editId ? await getSource({ accountId: ctx.account.id, id: editId }) : undefined;
  if (editId && !editing) throw new Response('Not Found', { status: 404 });
  return {
    sources: sources.map((x) => ({
      ...x,
      average: x.average ? Number(x.average).toFixed(1) : null,
      publicUrl: x.kind === 'parley' ? accountUrl(request, ctx.account.domain, `/r/${x.code}`) : x.reviewUrl,
    })),
    testimonialsUrl: accountUrl(request, ctx.account.domain, '/testimonials'),
    editor: editing
      ? {
          id: editing.id,
          kind: editing.kind,
          name: editing.name,
          reviewUrl: editing.reviewUrl ?? '',
          locationName: editing.config.locationName ?? '',
          businessUnitId: editing.config.businessUnitId ?? '',
          pageId: editing.config.pageId ?? '',
          hasToken: Boolean(editing.config.accessToken),
          hasRefreshToken: Boolean(editing.config.refreshToken),
          googleAccount: editing.config.refreshToken ? editing.config.googleAccount || 'a Google account' : null,
          hasApiKey: Boolean(editing.config.apiKey),
        }
      : editParam === 'new'
        ? { id: null, kind: (REVIEW_SOURCE_KINDS as readonly string[]).includes(url.searchParams.get('kind') ?? '') ? (url.searchParams.get('kind') as ReviewSourceKind) : 'parley', name: '', reviewUrl: '', locationName: '', businessUnitId: '', pageId: '', hasToken: false, hasRefreshToken: false, googleAccount: null, hasApiKey: false }
        : null,
    googleReady: googleOAuth2() !== null,
    locked: !can(ctx, 'manage_surveys'),
    user: publicUser(ctx),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  const id = parseRowId(formData.get('id'));
  if (intent === 'delete') {
    if (!id || !(await deleteSource({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(HERE, { type: 'info', text: 'Source Deleted' });
  }
  if (intent === 'import') {
    if (!id || !(await getSource({ accountId: ctx.account.id, id }))) throw new Response('Not Found', { status: 404 });
    const result = await importSourceReviews({ accountId: ctx.account.id, sourceId: id });
    if ('error' in result && result.error) return redirectWithToast(HERE, { type: 'error', text: result.error });
    return redirectWithToast(HERE, `${result.imported} new review${result.imported === 1 ? '' : 's'} imported`);
  }
  if (intent === 'google-connect' || intent === 'google-disconnect') {
    const source = id ? await getSource({ accountId: ctx.account.id, id }) : undefined;
    if (!source || source.kind !== 'google') throw new Response('Not Found', { status: 404 });
    const back = `${HERE}?source=${source.id}`;
    if (intent === 'google-disconnect') {
      const { revoked } = (await disconnectGoogleSource({ ...who, sourceId: source.id }))!;
      return redirectWithToast(back, { type: 'info', text: revoked ? 'Google disconnected' : 'Google disconnected here; Google could not be told, remove Parley in your Google account' });
    }
    try {
      // Google sends the user back to /settings/sources/google with a code and this signed state (ADR 096).
      return redirect(googleSourceConsentUrl({ accountId: ctx.account.id, userId: ctx.user.id, sourceId: source.id, redirectUri: accountUrl(request, ctx.account.domain, '/settings/sources/google') }));
    } catch (err) {
      if (err instanceof GoogleConnectError) return redirectWithToast(back, { type: 'error', text: err.message });
      throw err;
    }
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ReviewSourceSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  if (id) {
    if (!(await updateSource({ ...who, id, input: submission.value }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(HERE, { type: 'info', text: 'Source Updated' });
  }
  await createSource({ ...who, input: submission.value });
  return redirectWithToast(HERE, 'Source Created');
}

export const handle = { breadcrumb: 'Review Sources' };

export default function ReviewSources() {
  const { sources, editor, locked, user, testimonialsUrl, googleReady } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  return (
    <SettingsPage
      title="Review Sources"
      subHeader="Where your customers leave reviews: your own review page, and your Google, Trustpilot and Facebook profiles."
      learnMore="/help-center"
      locked={locked}
      actions={
        locked ? null : (
          <details className="type-picker">
            <summary className="btn btn-primary" data-testid="new-source">
              Add Source
            </summary>
            <ul className="menu-items" aria-label="Source">
              {REVIEW_SOURCE_KINDS.map((k) => (
                <li key={k}>
                  <Link to={`?source=new&kind=${k}`} data-testid={`new-source-${k}`}>
                    {SOURCE_KIND_LABELS[k]}
                  </Link>
                </li>
              ))}
            </ul>
          </details>
        )
      }
    >
      <div className="stack">
        {editor ? <SourceEditor key={editor.id ?? `new-${editor.kind}`} editor={editor} lastResult={lastResult} locked={locked} googleReady={googleReady} /> : null}
        {!editor && lastResult ? (
          <ErrorList errors={['Choose the source again: nothing was saved.']} />
        ) : null}
        {sources.length === 0 ? (
          <p className="muted" data-testid="empty">
            No sources yet. Add your review page to start collecting reviews.
          </p>
        ) : (
          <table className="table" data-testid="sources-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Source</th>
                <th>Reviews</th>
                <th>Last import</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sources.map((x) => (
                <tr key={x.id} data-testid={`source-${x.name}`}>
                  <td>
                    {x.name}
                    {x.publicUrl ? (
                      <>
                        <br />
                        <a href={x.publicUrl} className="muted" data-testid="source-url">
                          {x.publicUrl}
                        </a>
                      </>
                    ) : null}
                  </td>
                  <td>{SOURCE_KIND_LABELS[x.kind as ReviewSourceKind] ?? x.kind}</td>
                  <td>
                    {x.reviews}
                    {x.average ? ` · ${x.average}★` : ''}
                  </td>
                  <td>
                    {IMPORTING_KINDS.includes(x.kind as ReviewSourceKind) ? (
                      <>
                        {x.lastImportedAt ? formatDateTime(x.lastImportedAt, user) : 'Not yet'}
                        {x.lastImportError ? (
                          <p className="field-error" data-testid="import-error">
                            {x.lastImportError}
                          </p>
                        ) : null}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    {locked ? null : (
                      <div className="row wrap">
                        <Link to={`?source=${x.id}`} className="btn" aria-label={`Edit ${x.name}`}>
                          Edit
                        </Link>
                        {IMPORTING_KINDS.includes(x.kind as ReviewSourceKind) ? (
                          <Form method="post">
                            <input type="hidden" name="id" value={x.id} />
                            <button type="submit" className="btn" name="intent" value="import" data-testid="import-now">
                              Import now
                            </button>
                          </Form>
                        ) : null}
                        <DeleteConfirm id={`source-${x.id}`} fields={{ id: String(x.id) }} label={<span aria-label={`Delete ${x.name}`}>Delete</span>} text={`Delete ${x.name} and its reviews?`} />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="stack">
          <h2>Testimonials snippet</h2>
          <p className="muted">Reviews you mark as featured appear here. Paste this on your website:</p>
          <label htmlFor="testimonials-embed" className="visually-hidden">
            Testimonials snippet
          </label>
          <textarea
            id="testimonials-embed"
            readOnly
            rows={2}
            value={`<iframe src="${testimonialsUrl}" title="What our customers say" style="width:100%;min-height:420px;border:0" loading="lazy"></iframe>`}
          />
        </div>
      </div>
    </SettingsPage>
  );
}

type Editor = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['editor']>;

function SourceEditor({ editor, lastResult, locked, googleReady }: { editor: Editor; lastResult: ReturnType<typeof useActionData<typeof action>>; locked: boolean; googleReady: boolean }) {
  const [form, fields] = useForm<{ kind: string; name: string; reviewUrl: string; locationName: string; businessUnitId: string; pageId: string; apiKey: string; accessToken: string; refreshToken: string }>({
    id: `source-${editor.id ?? 'new'}`,
    lastResult,
    defaultValue: { kind: editor.kind, reviewUrl: editor.reviewUrl, locationName: editor.locationName, businessUnitId: editor.businessUnitId, pageId: editor.pageId, name: editor.name || (editor.kind === 'parley' ? 'Our review page' : SOURCE_KIND_LABELS[editor.kind as ReviewSourceKind]) },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const kind = editor.kind as ReviewSourceKind;
  return (
    <Form method="post" action={`${HERE}?source=${editor.id ?? 'new'}&kind=${kind}`} {...getFormProps(form)} className="stack" aria-label={editor.id ? 'Edit source' : 'Add source'}>
      <h2>
        {editor.id ? 'Edit' : 'Add'} {SOURCE_KIND_LABELS[kind]}
      </h2>
      {editor.id ? <input type="hidden" name="id" value={editor.id} /> : null}
      <input type="hidden" name="kind" value={kind} />
      <Field label="Name" field={fields.name} maxLength={60} />
      <Field label="Review URL (where customers leave a review; optional for your review page)" field={fields.reviewUrl} type="url" />
      {/* Without JavaScript every kind's fields show; the server keeps only the chosen kind's. */}
      {kind === 'google' ? (
        <fieldset className="stack">
          <legend>Google Business Profile API</legend>
          <Field label="Location (accounts/…/locations/…)" field={fields.locationName} />
          {/* Access is granted on Google's consent page (ADR 096); the tokens are kept sealed, never shown or pasted. */}
          {!editor.id ? (
            <p className="muted">Save the source, then connect it to Google to import reviews and post replies.</p>
          ) : editor.googleAccount ? (
            <div className="row" data-testid="google-connection">
              <span>Connected to Google as {editor.googleAccount}.</span>
              <button type="submit" className="btn" name="intent" value="google-disconnect" formNoValidate disabled={locked}>
                Disconnect Google
              </button>
            </div>
          ) : (
            <div className="row" data-testid="google-connection">
              <span className="muted">{googleReady ? 'Not connected: Parley cannot read reviews yet.' : 'Google is not set up on this server (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET).'}</span>
              <button type="submit" className="btn" name="intent" value="google-connect" formNoValidate disabled={locked || !googleReady}>
                Connect with Google
              </button>
            </div>
          )}
        </fieldset>
      ) : null}
      {kind === 'facebook' ? (
        <fieldset className="stack">
          <legend>Facebook Page ratings (optional)</legend>
          <Field label="Page id" field={fields.pageId} inputMode="numeric" hint="With a Page access token, the Page's recommendations are imported every hour. Without, this source is a link." />
          <Field label="Page access token" field={fields.accessToken} type="password" autoComplete="off" hint={editor.hasToken ? 'Saved. Leave blank to keep it.' : 'Needs the pages_read_user_content permission.'} />
        </fieldset>
      ) : null}
      {kind === 'trustpilot' ? (
        <fieldset className="stack">
          <legend>Trustpilot API</legend>
          <Field label="Business unit id" field={fields.businessUnitId} />
          <Field label="API key" field={fields.apiKey} type="password" autoComplete="off" hint={editor.hasApiKey ? 'Saved. Leave blank to keep it.' : undefined} />
          <Field label="OAuth access token (for replies)" field={fields.accessToken} type="password" autoComplete="off" hint={editor.hasToken ? 'Saved. Leave blank to keep it.' : undefined} />
        </fieldset>
      ) : null}
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={HERE} locked={locked} intent="save" />
    </Form>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Review Sources', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
