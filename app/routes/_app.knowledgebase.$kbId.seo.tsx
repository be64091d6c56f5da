import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { updateKnowledgeBaseSettings } from '~/models/knowledge-base/knowledge-bases.server';
import { SEO_DESCRIPTION_MAX, SEO_DESCRIPTION_MIN, SEO_TITLE_MAX, SEO_TITLE_MIN, SeoSettingsSchema } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  return {
    kbId: kb.id,
    settings: { gaKey: kb.gaKey ?? '', anonymizedIp: kb.anonymizedIp, seoTitle: kb.seoTitle ?? '', seoDescription: kb.seoDescription ?? '' },
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const submission = parseWithZod(await request.formData(), { schema: SeoSettingsSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  await updateKnowledgeBaseSettings({
    accountId: who.accountId,
    actorId: who.actorId,
    id: kb.id,
    patch: { gaKey: v.gaKey || null, anonymizedIp: v.anonymizedIp, seoTitle: v.seoTitle || null, seoDescription: v.seoDescription || null },
  });
  return redirectWithToast(`/knowledgebase/${kb.id}/seo`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: () => 'SEO' };

export default function SeoSettings() {
  const { kbId, settings, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: 'kb-seo', lastResult, defaultValue: settings, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <SettingsPage title="SEO" subHeader="How search engines list the help centre, and Google Analytics on its own host." locked={locked}>
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Google Analytics Key" field={fields.gaKey} autoComplete="off" hint="Optional, e.g. G-ABC123XYZ or UA-12345678-1. Analytics runs only on the help host." />
          <CheckboxField label="Anonymise visitors' IP addresses" field={fields.anonymizedIp} />
          <Field label="SEO Title" field={fields.seoTitle} autoComplete="off" hint={`Optional, ${SEO_TITLE_MIN} to ${SEO_TITLE_MAX} characters`} />
          <TextareaField label="SEO Description" field={fields.seoDescription} rows={3} />
          <small className="muted">
            Optional, {SEO_DESCRIPTION_MIN} to {SEO_DESCRIPTION_MAX} characters.
          </small>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kbId}/articles`} locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('SEO', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
