import { getFormProps, useForm } from '@conform-to/react';
import { Form, Link, useLocation } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { CSAT_DEFAULTS, CSAT_LIMITS } from '~/models/csat/constants';
import { ROLE_LOCKED_MESSAGE } from '~/models/shell/denied-messages';

type Kind = 'email' | 'chat';
export type CsatFormValues = Record<string, unknown> & { id?: number; inboxIds?: number[] };
const LABEL: Record<Kind, string> = { email: 'Email Survey', chat: 'Chat Survey' };

/** "Update is enabled only when the form changed" (suite.md section 4), with JavaScript; without it the button is always there. */
function useChanged(formId: string) {
  const [hydrated, setHydrated] = useState(false);
  const [changed, setChanged] = useState(false);
  useEffect(() => {
    setHydrated(true);
    const form = document.getElementById(formId) as HTMLFormElement | null;
    if (!form) return;
    const snap = () => new URLSearchParams([...new FormData(form)].map(([k, v]) => [k, String(v)])).toString();
    const initial = snap();
    const on = () => setChanged(snap() !== initial);
    form.addEventListener('input', on);
    form.addEventListener('change', on);
    return () => {
      form.removeEventListener('input', on);
      form.removeEventListener('change', on);
    };
  }, [formId]);
  return !hydrated || changed;
}

/** The email or chat survey's settings form (Settings → Customer Satisfaction → …/{id}). */
export function CsatSettingsForm({
  kind,
  survey,
  inboxes,
  locked,
  lastResult,
  logo,
  preview,
}: {
  kind: Kind;
  survey: CsatFormValues | null;
  inboxes: { id: number; name: string; email: string | null }[];
  locked: boolean;
  lastResult: unknown;
  /** The email survey's logo (an existing survey only: the logo is uploaded to a saved survey). */
  logo?: { url: string | null; error: string | null };
  /** The rating email as rendered for a sample customer. */
  preview?: string | null;
}) {
  const list = `/settings/${kind}-survey`;
  const formId = `csat-${kind}-${survey?.id ?? 'new'}`;
  type Shape = Record<'inboxIds' | 'subject' | 'heading' | 'subHeading' | 'footer' | 'ratingsType' | 'commentEnabled' | 'commentEnabledBelow' | 'commentTitle' | 'finishText' | 'allowMultipleFeedback', string>;
  const [conform, fields] = useForm<Shape>({
    id: formId,
    lastResult: lastResult as never,
    defaultValue: (survey ?? { ...CSAT_DEFAULTS, subject: "", commentEnabledBelow: String(CSAT_DEFAULTS.commentEnabledBelow) }) as never,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const changed = useChanged(formId);
  const chosen = new Set(((fields.inboxIds.value as unknown as string[] | string | undefined) ? [fields.inboxIds.value as unknown as string[]].flat() : (survey?.inboxIds ?? [])).map(String));
  const { pathname } = useLocation();
  return (
    <SettingsPage
      title={survey ? `Edit ${LABEL[kind]}` : `Create ${LABEL[kind]}`}
      subHeader={kind === 'email' ? 'A rating email to the customer when a conversation of these inboxes is resolved.' : 'The messenger asks for a rating when a chat of these inboxes is resolved.'}
      learnMore="/help-center"
      locked={locked}
      actions={survey ? <DeleteConfirm id={`csat-${survey.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(conform)} action={pathname}>
        <fieldset disabled={locked} className="stack">
          <fieldset className="field">
            <legend>Inboxes</legend>
            {inboxes.length === 0 ? (
              <p className="muted">{kind === 'email' ? 'No verified email inbox yet: add one under Settings → Emails and verify its forwarding.' : 'No messenger inbox yet: create one under Settings → Chat Messenger.'}</p>
            ) : (
              <div className="choice-grid">
                {inboxes.map((i) => (
                  <label key={i.id} className="check">
                    <input type="checkbox" name="inboxIds" value={i.id} defaultChecked={chosen.has(String(i.id))} /> {i.name}
                    {i.email ? <span className="muted"> ({i.email})</span> : null}
                  </label>
                ))}
              </div>
            )}
            <ErrorList id={fields.inboxIds.errorId} errors={fields.inboxIds.errors} />
          </fieldset>
          <Field label="Subject" field={fields.subject} maxLength={CSAT_LIMITS.subject + 20} autoComplete="off" hint={`At most ${CSAT_LIMITS.subject} characters`} />
          {kind === 'email' ? (
            <>
              <Field label="Heading" field={fields.heading} autoComplete="off" hint="{{NAME}} and {{EMAIL}} are replaced by the customer's" />
              <Field label="Sub heading" field={fields.subHeading} autoComplete="off" />
              <Field label="Footer" field={fields.footer} autoComplete="off" />
            </>
          ) : null}
          <SelectField
            label="Rating type"
            field={fields.ratingsType}
            options={[
              { value: 'star', label: 'Stars' },
              { value: 'emoji', label: 'Emoji' },
            ]}
          />
          <CheckboxField label="Ask for a comment" field={fields.commentEnabled} />
          {kind === 'email' ? (
            <>
              <SelectField label="Ask for a comment when the rating is below" field={fields.commentEnabledBelow} options={[1, 2, 3, 4, 5].map((n) => ({ value: String(n), label: String(n) }))} />
              <Field label="Comment title" field={fields.commentTitle} autoComplete="off" />
              <Field label="Finish text" field={fields.finishText} autoComplete="off" maxLength={CSAT_LIMITS.finishText} />
            </>
          ) : null}
          <CheckboxField label="Allow multiple feedback (ask again each time the conversation is resolved)" field={fields.allowMultipleFeedback} />
        </fieldset>
        <ErrorList id={conform.errorId} errors={conform.errors} />
        <FormActions cancelTo={list} submitLabel={survey ? 'Update' : 'Create'} intent="save" locked={locked} disabled={!changed} />
      </Form>
      {kind === 'email' && survey && logo ? (
        <Form method="post" encType="multipart/form-data" action={pathname} className="stack" aria-labelledby="csat-logo-title">
          <fieldset disabled={locked} className="field">
            <legend id="csat-logo-title">Logo</legend>
            {logo.url ? <img src={logo.url} alt="Survey logo" className="logo-preview" height={40} /> : null}
            <label htmlFor="csat-logo">{logo.url ? 'Replace the logo' : 'Upload a logo'}</label>
            <input id="csat-logo" type="file" name="logo" accept=".png,.jpg,.jpeg,image/png,image/jpeg" aria-describedby="csat-logo-hint csat-logo-error" />
            <p id="csat-logo-hint" className="muted">
              png, jpg or jpeg, max size 2MB; shown 40 px high at the top of the email.
            </p>
            <ErrorList id="csat-logo-error" errors={logo.error ? [logo.error] : undefined} />
            <div className="row">
              <button type="submit" className="btn" name="intent" value="logo-upload">
                Upload logo
              </button>
              {logo.url ? (
                <button type="submit" className="btn" name="intent" value="logo-remove">
                  Remove logo
                </button>
              ) : null}
            </div>
          </fieldset>
        </Form>
      ) : null}
      {kind === 'email' && preview ? (
        <section aria-labelledby="csat-preview-title" className="stack">
          <h2 id="csat-preview-title">Email preview</h2>
          <p className="muted">The saved survey as a customer named Jane Doe gets it.</p>
          <iframe title="Email preview" sandbox="" srcDoc={preview} className="email-preview-frame" />
        </section>
      ) : null}
      <p>
        <Link to={list}>Back to the list and the ratings</Link>
      </p>
    </SettingsPage>
  );
}
