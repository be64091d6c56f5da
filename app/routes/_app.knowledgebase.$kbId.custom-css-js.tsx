import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { Lock } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { updateKnowledgeBaseSettings } from '~/models/knowledge-base/knowledge-bases.server';
import { CUSTOM_CODE_MAX, CustomCodeSchema } from '~/models/knowledge-base/schemas';
import { FEATURE_DENIED_MESSAGE } from '~/models/plans/catalogue';
import { parseWithZod } from '~/utils/conform.server';
import { getConfig } from '~/utils/env.server';
import { pageTitle } from '~/utils/format';
import { can, canUseFeature, requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * Plan features customCss and customJavascript, one per field (ADR 157): a field the plan lacks is shown locked and
 * the server refuses a change to it; what is stored stays, and the help centre stops serving it until the plan has it.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  return {
    kbId: kb.id,
    settings: { customCss: kb.customCss, customJs: kb.customJs },
    cssLocked: !canUseFeature(ctx, 'knowledgeBase/customCss'),
    jsLocked: !canUseFeature(ctx, 'knowledgeBase/customJavascript'),
    locked: !can(ctx, 'customize_docs'),
    helpAddress: getConfig().helpHost ? `${kb.slug}.${getConfig().helpHost}` : null,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!canUseFeature(ctx, 'knowledgeBase/customCss') && !canUseFeature(ctx, 'knowledgeBase/customJavascript')) await requireFeature(request, 'knowledgeBase/customCss', ctx);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const formData = await request.formData();
  // A locked field is not sent by the page (its textarea is disabled): it keeps what is stored. A post that tries to
  // change it anyway is refused, as a locked page's post is.
  for (const [field, key, stored] of [
    ['customCss', 'knowledgeBase/customCss', kb.customCss],
    ['customJs', 'knowledgeBase/customJavascript', kb.customJs],
  ] as const) {
    if (canUseFeature(ctx, key)) continue;
    const sent = formData.get(field);
    if (sent !== null && sent !== stored) await requireFeature(request, key, ctx);
    formData.set(field, stored);
  }
  const submission = parseWithZod(formData, { schema: CustomCodeSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  await updateKnowledgeBaseSettings({ accountId: who.accountId, actorId: who.actorId, id: kb.id, patch: submission.value });
  return redirectWithToast(`/knowledgebase/${kb.id}/custom-css-js`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: () => 'Custom CSS & JS' };

export default function CustomCode() {
  const { kbId, settings, cssLocked, jsLocked, locked, helpAddress } = useLoaderData<typeof loader>();
  const planLocked = cssLocked && jsLocked;
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: 'kb-custom-code', lastResult, defaultValue: settings, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  const disabled = locked || planLocked;
  return (
    <SettingsPage
      title="Custom CSS & JS"
      subHeader={
        helpAddress
          ? `Runs only on the help centre's own host (${helpAddress} and its custom domain), never on the agent app.`
          : 'Runs only on the help centre\'s own host. Set HELP_HOST to give the help centre one; until then this code is stored but not run.'
      }
      locked={locked}
    >
      {cssLocked || jsLocked ? (
        <p className="locked-note" data-testid="plan-locked">
          <Lock aria-hidden="true" size={14} /> {planLocked ? FEATURE_DENIED_MESSAGE : `${cssLocked ? 'Custom CSS' : 'Custom JavaScript'}: ${FEATURE_DENIED_MESSAGE}`}
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={disabled} className="stack">
          <fieldset disabled={cssLocked} className="stack">
            <TextareaField label="Custom CSS" field={fields.customCss} rows={8} maxLength={CUSTOM_CODE_MAX} />
          </fieldset>
          <fieldset disabled={jsLocked} className="stack">
            <TextareaField label="Custom JavaScript" field={fields.customJs} rows={8} maxLength={CUSTOM_CODE_MAX} />
          </fieldset>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kbId}/articles`} locked={disabled} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Custom CSS & JS', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
