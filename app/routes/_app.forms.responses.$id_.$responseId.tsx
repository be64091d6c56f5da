import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { answerLabel, deleteResponse, getForm, getResponse } from '~/models/forms/forms.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

async function load(request: Request, params: { id?: string; responseId?: string }, permission: 'manage_contacts' | 'manage_contact_form') {
  const ctx = await requireFeature(request, 'customerManagement/enabled', await requirePermission(request, permission));
  const formId = parseRouteId(params.id);
  const id = parseRouteId(params.responseId);
  const form = formId ? await getForm({ accountId: ctx.account.id, id: formId }) : undefined;
  const response = form && id ? await getResponse({ accountId: ctx.account.id, formId: form.id, id }) : undefined;
  if (!form || !response) throw new Response('Not Found', { status: 404 });
  return { ctx, form, response };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, form, response } = await load(request, params, 'manage_contacts');
  const fields = response.fieldsAtSubmit.length ? response.fieldsAtSubmit : form.fields;
  const extraFiles = Object.entries(response.answers).filter(([k, a]) => typeof a === 'object' && !fields.some((f) => f.key === k));
  return {
    form: { id: form.id, name: form.name },
    response: {
      id: response.id,
      createdAt: response.createdAt,
      email: response.email,
      contactId: response.contactId,
      conversationId: response.conversationId,
      pending: response.pending,
      answers: [
        ...fields.map((f) => ({ key: f.key, label: f.label, text: answerLabel(f, response.answers[f.key]), isFile: typeof response.answers[f.key] === 'object' })),
        ...extraFiles.map(([k, a]) => ({ key: k, label: 'File', text: typeof a === 'object' ? a.filename : '', isFile: true })),
      ],
    },
    locked: !can(ctx, 'manage_contact_form'),
    user: publicUser(ctx),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, form, response } = await load(request, params, 'manage_contact_form');
  const formData = await request.formData();
  if (formData.get('intent') !== 'delete') throw new Response('Unknown intent', { status: 400 });
  await deleteResponse({ accountId: ctx.account.id, actorId: ctx.user.id, formId: form.id, id: response.id });
  return redirectWithToast(`/forms/responses/${form.id}`, { type: 'info', text: 'Response Deleted' });
}

export const handle = { breadcrumb: (d: { response: { id: number } } | undefined) => (d ? `Response #${d.response.id}` : null) };

export default function FormResponsePage() {
  const { form, response, locked, user } = useLoaderData<typeof loader>();
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Response #{response.id}</h1>
        <div className="spacer" />
        <Link to={`/forms/responses/${form.id}`} className="btn">
          All responses
        </Link>
        <DeleteConfirm id={`response-${response.id}`} label="Delete" text="Delete this response? The contact stays." disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
      </header>
      <p className="muted">
        {form.name} · {formatDateTime(response.createdAt, user)}
        {response.contactId ? (
          <>
            {' · '}
            <Link to={`/customers/${response.contactId}`}>Contact</Link>
          </>
        ) : null}
        {response.conversationId ? (
          <>
            {' · '}
            <Link to={`/inbox/${response.conversationId}`}>Conversation</Link>
          </>
        ) : null}
      </p>
      {response.pending ? (
        <p className="muted" role="status" data-testid="response-pending">
          Received. Its contact and conversation are being made and appear here within moments (reload the page).
        </p>
      ) : null}
      <dl className="card stack" data-testid="response-answers">
        {response.answers.map((a) => (
          <div key={a.key}>
            <dt>
              <strong>{a.label}</strong>
            </dt>
            <dd>
              {a.isFile ? (
                <a href={`/forms/responses/${form.id}/${response.id}/file/${a.key}`} download>
                  {a.text}
                </a>
              ) : (
                a.text || <span className="muted">—</span>
              )}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(`Response #${d?.response.id ?? ''}`, d?.form.name ?? 'Form') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
