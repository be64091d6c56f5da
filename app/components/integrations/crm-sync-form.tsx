import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form } from '@remix-run/react';
import { CheckboxField, ErrorList, SelectField } from '~/components/ui/forms';

export type CrmSyncView = {
  enabled: boolean;
  fields: Partial<Record<string, string>>;
  parleyFields: { key: string; label: string }[];
  properties: { value: string; label: string }[];
  manualWebhook: string | null;
};

/** The contact sync's opt-in and field mapping on a CRM's settings page (ADR 116): a plain form, no script needed. */
export function CrmSyncForm({ label, sync, lastResult }: { label: string; sync: CrmSyncView; lastResult: SubmissionResult<string[]> | null | undefined }) {
  const [form, fields] = useForm({
    id: 'integration-crm-sync',
    lastResult,
    shouldValidate: 'onSubmit',
    defaultValue: { enabled: sync.enabled ? 'on' : undefined, ...sync.fields },
  });
  const f = fields as unknown as Record<string, Parameters<typeof SelectField>[0]['field']>;
  return (
    <section aria-labelledby="crm-sync-heading" data-testid="crm-sync">
      <h2 id="crm-sync-heading">Contact sync</h2>
      <p className="muted">
        Keeps the chosen contact fields the same in Parley and {label}, matched by email. The later change wins; a change that came from {label} is not sent
        back to it.
      </p>
      <Form method="post" {...getFormProps(form)}>
        <CheckboxField label={`Sync contact fields both ways with ${label}`} field={fields.enabled} />
        {sync.parleyFields.map((p) => (
          <SelectField key={p.key} label={`${label} property for ${p.label.toLowerCase()}`} field={f[p.key]} options={sync.properties} placeholder="Not synced" />
        ))}
        <ErrorList errors={form.errors} />
        <button type="submit" className="btn" name="intent" value="sync">
          Save contact sync
        </button>
      </Form>
      {sync.manualWebhook ? (
        <p className="muted" data-testid="crm-sync-manual">
          In your {label} app's settings (Webhooks), set the target URL to <code>{sync.manualWebhook}</code> and subscribe to <code>contact.propertyChange</code> for
          each mapped property.
        </p>
      ) : null}
    </section>
  );
}
