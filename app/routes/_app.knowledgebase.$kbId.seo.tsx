import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { updateHelpCentreSeo } from '~/models/knowledge-base/knowledge-bases.server';
import { HelpCentreSeoSchema, SEO_DESCRIPTION_MAX, SEO_DESCRIPTION_MIN, SEO_TITLE_MAX, SEO_TITLE_MIN } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Settings → SEO: the home page's title and description, and Google Analytics (only when a key is set). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  return {
    kb: { id: kb.id, gaKey: kb.gaKey ?? '', anonymizedIp: kb.anonymizedIp, seoTitle: kb.seoTitle ?? '', seoDescription: kb.seoDescription ?? '' },
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) roleDenied();
  const submission = parseWithZod(await request.formData(), { schema: HelpCentreSeoSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  if (!(await updateHelpCentreSeo({ accountId: who.accountId, actorId: who.actorId, id: kb.id, input: submission.value }))) {
    throw new Response('Not Found', { status: 404 });
  }
  return redirectWithToast(`/knowledgebase/${kb.id}/seo`, { type: 'info', text: 'Knowledgebase Updated' });
}

export const handle = { breadcrumb: 'SEO' };

export default function HelpCentreSeo() {
  const { kb, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `kb-seo-${kb.id}`,
    lastResult,
    defaultValue: { gaKey: kb.gaKey, anonymizedIp: kb.anonymizedIp ? 'on' : undefined, seoTitle: kb.seoTitle, seoDescription: kb.seoDescription },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage title="SEO" subHeader="What search engines and shared links show of the help centre's home page." learnMore="/help-center/knowledge-base" locked={locked}>
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="SEO title" field={fields.seoTitle} autoComplete="off" hint={`${SEO_TITLE_MIN} to ${SEO_TITLE_MAX} characters; empty uses the help centre's name.`} />
          <TextareaField label="SEO description" field={fields.seoDescription} rows={3} maxLength={SEO_DESCRIPTION_MAX} />
          <small className="muted">
            {SEO_DESCRIPTION_MIN} to {SEO_DESCRIPTION_MAX} characters; empty uses the knowledge base's description.
          </small>
          <Field
            label="Google Analytics key"
            field={fields.gaKey}
            autoComplete="off"
            hint="Optional: a measurement id such as G-ABC123XYZ or UA-123456-1. Empty, the help centre loads no analytics script."
          />
          <CheckboxField label="Anonymise visitors' IP addresses" field={fields.anonymizedIp} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kb.id}/articles`} submitLabel="Save" intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('SEO', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
