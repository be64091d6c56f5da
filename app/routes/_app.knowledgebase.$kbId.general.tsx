import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { updateHelpCentreGeneral } from '~/models/knowledge-base/knowledge-bases.server';
import { HELP_NAME_MAX, HELP_NAME_MIN, HelpCentreGeneralSchema, KB_LANGUAGES } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Settings → General: the help centre's public name, custom domain, language and whether it is public. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  return {
    kb: { id: kb.id, slug: kb.slug, helpName: kb.helpName ?? kb.name, cname: kb.cname ?? '', language: kb.language, docsVisible: kb.docsVisible },
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) roleDenied();
  const submission = parseWithZod(await request.formData(), { schema: HelpCentreGeneralSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  if (!(await updateHelpCentreGeneral({ accountId: who.accountId, actorId: who.actorId, id: kb.id, input: submission.value }))) {
    throw new Response('Not Found', { status: 404 });
  }
  return redirectWithToast(`/knowledgebase/${kb.id}/general`, { type: 'info', text: 'Knowledgebase Updated' });
}

export const handle = { breadcrumb: 'General' };

export default function HelpCentreGeneral() {
  const { kb, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `kb-general-${kb.id}`,
    lastResult,
    defaultValue: { helpName: kb.helpName, cname: kb.cname, language: kb.language, docsVisible: kb.docsVisible ? 'on' : undefined },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title="General"
      subHeader="How the public help centre is named, where it lives and which language its search understands."
      learnMore="/help-center/knowledge-base"
      locked={locked}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Help centre name" field={fields.helpName} autoComplete="off" hint={`${HELP_NAME_MIN} to ${HELP_NAME_MAX} characters, shown in the help centre's header and titles.`} />
          <Field
            label="Custom domain (CNAME)"
            field={fields.cname}
            autoComplete="off"
            inputMode="url"
            hint="Optional, e.g. help.example.com. Point the domain's CNAME record at this Parley installation."
          />
          <SelectField label="Language" field={fields.language} options={KB_LANGUAGES.map((l) => ({ value: l.code, label: l.label }))} />
          <small className="muted">Search stems words in this language; changing it re-indexes every article.</small>
          <CheckboxField label="Help centre is public" field={fields.docsVisible} />
          <small className="muted">
            Off, the help centre at <code>/hc/{kb.slug}</code> answers “not found” to everyone; articles stay as they are.
          </small>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kb.id}/articles`} submitLabel="Save" intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('General', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
