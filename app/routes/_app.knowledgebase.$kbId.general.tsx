import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { isCnameTaken, updateKnowledgeBaseSettings } from '~/models/knowledge-base/knowledge-bases.server';
import { GeneralSettingsSchema, HELP_NAME_MAX, HELP_NAME_MIN, KB_LANGUAGES } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { getConfig } from '~/utils/env.server';
import { pageTitle } from '~/utils/format';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  const helpHost = getConfig().helpHost;
  return {
    kbId: kb.id,
    settings: { helpName: kb.helpName ?? kb.name, cname: kb.cname ?? '', language: kb.language, docsVisible: kb.docsVisible },
    helpAddress: helpHost ? `${kb.slug}.${helpHost}` : null,
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const formData = await request.formData();
  const submission = await parseWithZod(formData, {
    schema: GeneralSettingsSchema.superRefine(async (v, zctx) => {
      if (v.cname && (await isCnameTaken({ id: kb.id, cname: v.cname }))) {
        zctx.addIssue({ code: 'custom', path: ['cname'], message: 'Another help centre already uses this domain' });
      }
    }),
    async: true,
  });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  await updateKnowledgeBaseSettings({
    accountId: who.accountId,
    actorId: who.actorId,
    id: kb.id,
    patch: { helpName: v.helpName, cname: v.cname || null, language: v.language, docsVisible: v.docsVisible },
  });
  return redirectWithToast(`/knowledgebase/${kb.id}/general`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: () => 'General' };

export default function GeneralSettings() {
  const { kbId, settings, helpAddress, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: 'kb-general', lastResult, defaultValue: settings, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <SettingsPage title="General" subHeader="The help centre's name, address, language and visibility." locked={locked}>
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Help Center Name" field={fields.helpName} autoComplete="off" hint={`${HELP_NAME_MIN} to ${HELP_NAME_MAX} characters`} />
          <Field
            label="Custom domain (CNAME)"
            field={fields.cname}
            autoComplete="off"
            hint={
              helpAddress
                ? `Optional. Point the domain's CNAME record at ${helpAddress}; the help centre is always at ${helpAddress}.`
                : 'Optional. Point the domain\'s CNAME record at this Parley installation.'
            }
          />
          <SelectField label="Language" field={fields.language} options={KB_LANGUAGES.map((l) => ({ value: l.code, label: l.label }))} />
          <CheckboxField label="Help centre is public (docs visible)" field={fields.docsVisible} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kbId}/articles`} locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('General', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
