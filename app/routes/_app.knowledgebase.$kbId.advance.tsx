import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { updateKnowledgeBaseSettings } from '~/models/knowledge-base/knowledge-bases.server';
import { AdvancedSettingsSchema, HELP_ARTICLE_ORDERS, RELATED_ARTICLES_MAX, type HelpArticleOrder } from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';
import { helpCentreAddress } from '~/models/knowledge-base/help-host.server';

/** Advanced (section 2 "advance", ADR 058): what the public article pages show, and the order of the help centre's lists. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  return {
    kb: { id: kb.id, preview: helpCentreAddress(request, ctx.account.domain, kb) },
    settings: {
      articleFeedback: kb.articleFeedback,
      showLastUpdated: kb.showLastUpdated,
      showViewCount: kb.showViewCount,
      relatedArticles: kb.relatedArticles,
      articleOrder: kb.articleOrder,
    },
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const submission = parseWithZod(await request.formData(), { schema: AdvancedSettingsSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  await updateKnowledgeBaseSettings({
    accountId: who.accountId,
    actorId: who.actorId,
    id: kb.id,
    patch: { ...v, articleOrder: v.articleOrder as HelpArticleOrder },
  });
  return redirectWithToast(`/knowledgebase/${kb.id}/advance`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: () => 'Advanced' };

export default function AdvancedSettings() {
  const { kb, settings, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: 'kb-advanced', lastResult, defaultValue: settings, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <SettingsPage
      title="Advanced"
      subHeader="What readers see around each article on the public help centre, and how its lists are ordered."
      learnMore="/help-center"
      actions={
        <a href={kb.preview} target="_blank" rel="noreferrer" className="btn">
          Preview
        </a>
      }
      locked={locked}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <legend>Article pages</legend>
          <CheckboxField label={'Ask "Was this helpful?" under each article (the answers feed the article ratings)'} field={fields.articleFeedback} />
          <CheckboxField label="Show when the article was last updated" field={fields.showLastUpdated} />
          <CheckboxField label="Show how many times the article was viewed" field={fields.showViewCount} />
          <CheckboxField label={`Show up to ${RELATED_ARTICLES_MAX} related articles from the same category`} field={fields.relatedArticles} />
        </fieldset>
        <fieldset disabled={locked} className="stack">
          <legend>Lists</legend>
          <SelectField label="Order of articles on the home and category pages" field={fields.articleOrder} options={HELP_ARTICLE_ORDERS} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kb.id}/articles`} locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Advanced', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
