import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { helpCentreLook, saveCustomization } from '~/models/knowledge-base/help-settings.server';
import { KbImageError, readImageForm } from '~/models/knowledge-base/images.server';
import {
  contrastRatio,
  CustomizationSchema,
  DEFAULT_HEADER_TEXT_COLOR,
  HEADER_LINK_LABEL_MAX,
  HEADER_LINKS_MAX,
  KB_IMAGE_ACCEPT,
  MIN_CONTRAST,
} from '~/models/knowledge-base/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';
import { helpCentreAddress } from '~/models/knowledge-base/help-host.server';

/** Customization (ADR 058): logo, brand and header text colours (contrast checked), header links; applied on the public help centre. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  const look = helpCentreLook(kb);
  const links = [...look.headerLinks, ...Array.from({ length: HEADER_LINKS_MAX }, () => ({ label: '', url: '' }))].slice(0, HEADER_LINKS_MAX);
  return {
    kb: { id: kb.id, preview: helpCentreAddress(request, ctx.account.domain, kb) },
    logoUrl: look.logoUrl,
    settings: { brandColor: kb.brandColor ?? '', headerTextColor: kb.headerTextColor ?? '', headerLinks: links },
    contrast: look.brandColor ? Math.round(contrastRatio(look.brandColor, look.headerTextColor!) * 10) / 10 : null,
    locked: !can(ctx, 'customize_docs'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'customize_docs')) await roleDenied(request);
  const { fields, file } = await readImageForm(request, { fileField: 'logo' });
  const submission = parseWithZod(fields, { schema: CustomizationSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const v = submission.value;
  try {
    await saveCustomization({
      accountId: who.accountId,
      actorId: who.actorId,
      id: kb.id,
      brandColor: v.brandColor,
      headerTextColor: v.headerTextColor,
      headerLinks: v.headerLinks.filter((l) => l.label && l.url),
      removeLogo: v.removeLogo,
      logo: file,
    });
  } catch (err) {
    if (err instanceof KbImageError) return data(submission.reply({ fieldErrors: { logo: [err.message] } }), { status: 400 });
    throw err;
  }
  return redirectWithToast(`/knowledgebase/${kb.id}/customization`, { type: 'info', text: 'Settings Updated' });
}

export const handle = { breadcrumb: () => 'Customization' };

type FormShape = { brandColor: string; headerTextColor: string; headerLinks: { label: string; url: string }[]; removeLogo: boolean; logo: string };

export default function Customization() {
  const { kb, logoUrl, settings, contrast, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<FormShape>({
    id: 'kb-customization',
    lastResult,
    defaultValue: settings,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const links = fields.headerLinks.getFieldList();
  return (
    <SettingsPage
      title="Customization"
      subHeader="How the public help centre looks: your logo, the header's colours and links."
      learnMore="/help-center"
      actions={
        <a href={kb.preview} target="_blank" rel="noreferrer" className="btn">
          Preview
        </a>
      }
      locked={locked}
    >
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <legend>Logo</legend>
          {logoUrl ? (
            <div className="row">
              <img src={logoUrl} alt="Current logo" className="kb-logo-preview" data-testid="logo-preview" />
              <CheckboxField label="Remove the logo" field={fields.removeLogo} />
            </div>
          ) : null}
          <div className="field">
            <label htmlFor={fields.logo.id}>{logoUrl ? 'Replace the logo' : 'Logo image'}</label>
            <input
              type="file"
              id={fields.logo.id}
              name={fields.logo.name}
              accept={KB_IMAGE_ACCEPT}
              aria-invalid={fields.logo.errors ? true : undefined}
              aria-describedby={fields.logo.errors ? fields.logo.errorId : `${fields.logo.id}-hint`}
            />
            <small className="muted" id={`${fields.logo.id}-hint`}>
              PNG, JPEG, GIF or WebP, at most 5 MB. Shown at 32 px high beside the help centre's name.
            </small>
            <ErrorList id={fields.logo.errorId} errors={fields.logo.errors} />
          </div>
        </fieldset>
        <fieldset disabled={locked} className="stack">
          <legend>Colours</legend>
          <div className="row kb-colors">
            <ColorField
              label="Brand colour"
              field={fields.brandColor}
              hint="The header's background and the main buttons, e.g. #1F6FEB. Empty: the plain white header."
            />
            <ColorField
              label="Header text colour"
              field={fields.headerTextColor}
              hint={`Text and links on the brand colour; ${DEFAULT_HEADER_TEXT_COLOR} when empty. It must reach a contrast of ${MIN_CONTRAST}:1.`}
            />
          </div>
          {contrast !== null ? (
            <p className="muted" data-testid="contrast">
              Current contrast: {contrast}:1 (at least {MIN_CONTRAST}:1 needed).
            </p>
          ) : null}
        </fieldset>
        <fieldset disabled={locked} className="stack">
          <legend>Header links</legend>
          <p className="muted">Up to {HEADER_LINKS_MAX} links shown in the header, e.g. your website or status page. Leave a row empty to drop it.</p>
          <ol className="kb-header-links">
            {Array.from({ length: HEADER_LINKS_MAX }, (_, i) => {
              const row = links[i]?.getFieldset();
              return (
                <li key={i} className="row">
                  {row ? (
                    <>
                      <Field label={`Label ${i + 1}`} field={row.label} autoComplete="off" maxLength={HEADER_LINK_LABEL_MAX} />
                      <Field label={`Address ${i + 1}`} field={row.url} type="url" autoComplete="off" placeholder="https://" />
                    </>
                  ) : (
                    <>
                      <div className="field">
                        <label htmlFor={`hl-${i}-label`}>Label {i + 1}</label>
                        <input id={`hl-${i}-label`} name={`headerLinks[${i}].label`} autoComplete="off" maxLength={HEADER_LINK_LABEL_MAX} />
                      </div>
                      <div className="field">
                        <label htmlFor={`hl-${i}-url`}>Address {i + 1}</label>
                        <input id={`hl-${i}-url`} name={`headerLinks[${i}].url`} type="url" autoComplete="off" placeholder="https://" />
                      </div>
                    </>
                  )}
                </li>
              );
            })}
          </ol>
          <ErrorList id={fields.headerLinks.errorId} errors={fields.headerLinks.errors} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={`/knowledgebase/${kb.id}/articles`} locked={locked} />
      </Form>
    </SettingsPage>
  );
}

/** A colour typed as #RRGGBB (works without JavaScript), with a swatch of the saved value. */
function ColorField({ label, field, hint }: { label: string; field: Parameters<typeof getInputProps>[0]; hint: string }) {
  const { key, ...props } = getInputProps(field, { type: 'text', ariaAttributes: true });
  const value = typeof field.initialValue === 'string' && /^#[0-9a-f]{6}$/i.test(field.initialValue) ? field.initialValue : null;
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      <div className="row">
        <span className="kb-swatch" aria-hidden="true" style={value ? { background: value } : undefined} />
        <input key={key} {...props} autoComplete="off" placeholder="#RRGGBB" maxLength={7} size={9} />
      </div>
      <small className="muted">{hint}</small>
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Customization', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
