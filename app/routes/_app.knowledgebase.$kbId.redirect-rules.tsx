import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { deleteRedirectRule, listRedirectRules, saveRedirectRule } from '~/models/knowledge-base/redirects.server';
import { RedirectRuleSchema } from '~/models/knowledge-base/schemas';
import { FieldInputError } from '~/models/productivity/shared.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Settings → Redirect Rules: an article address answers 301 to another article's (ADR 053). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  const rules = await listRedirectRules(scope);
  const editId = parseRouteId(new URL(request.url).searchParams.get('edit') ?? undefined);
  const editing = editId ? rules.find((rule) => rule.id === editId) ?? null : null;
  return { kb: { id: kb.id, slug: kb.slug }, rules, editing, locked: !can(ctx, 'customize_docs') };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) roleDenied();
  const here = `/knowledgebase/${kb.id}/redirect-rules`;
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'delete') {
    const id = parseRouteId(String(formData.get('id') ?? ''));
    if (!id || !(await deleteRedirectRule({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(here, { type: 'info', text: 'Redirect Rule Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: RedirectRuleSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    const saved = await saveRedirectRule({ ...who, input: submission.value });
    if (!saved) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof FieldInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
  return redirectWithToast(here, submission.value.id ? { type: 'info', text: 'Redirect Rule Updated' } : 'Redirect Rule Created');
}

export const handle = { breadcrumb: 'Redirect Rules' };

export default function RedirectRules() {
  const { kb, rules, editing, locked } = useLoaderData<typeof loader>();
  return (
    <>
      <RuleForm key={editing?.id ?? 'new'} kb={kb} editing={editing} locked={locked} />
      <section className="card" aria-labelledby="redirect-rules-list">
        <h2 id="redirect-rules-list">Rules</h2>
        {rules.length === 0 ? (
          <p className="muted" data-testid="empty">
            No redirect rules yet.
          </p>
        ) : (
          <table className="table" data-testid="redirect-rules">
            <thead>
              <tr>
                <th>Source</th>
                <th>Destination</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => (
                <tr key={rule.id}>
                  <td>
                    <code>/hc/{kb.slug}/articles/{rule.source}</code>
                  </td>
                  <td>
                    <code>/hc/{kb.slug}/articles/{rule.destination}</code>
                  </td>
                  <td className="row">
                    <Link to={`?edit=${rule.id}`} className="btn btn-link" aria-label={`Edit the rule for ${rule.source}`}>
                      Edit
                    </Link>
                    <Form method="post">
                      <input type="hidden" name="id" value={rule.id} />
                      <button type="submit" name="intent" value="delete" className="btn btn-link" disabled={locked} aria-label={`Delete the rule for ${rule.source}`}>
                        Delete
                      </button>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

function RuleForm({ kb, editing, locked }: Pick<LoaderData, 'kb' | 'editing' | 'locked'>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `redirect-rule-${editing?.id ?? 'new'}`,
    lastResult,
    defaultValue: editing ? { source: editing.source, destination: editing.destination } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title="Redirect Rules"
      subHeader="Send visitors of an old or removed article's address to another article, with a permanent redirect (301)."
      learnMore="/help-center/knowledge-base"
      locked={locked}
    >
      <Form method="post" {...getFormProps(form)}>
        {editing ? <input type="hidden" name="id" value={editing.id} /> : null}
        <fieldset disabled={locked} className="stack">
          <legend>{editing ? 'Edit rule' : 'New rule'}</legend>
          <Field label="Source" field={fields.source} autoComplete="off" hint={`The address after /hc/${kb.slug}/articles/, e.g. 12-old-title.`} />
          <Field label="Destination" field={fields.destination} autoComplete="off" hint="The article to send visitors to, e.g. 34-new-title." />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kb.id}/redirect-rules`} submitLabel={editing ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Redirect Rules', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
