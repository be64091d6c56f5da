import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form, Link } from '@remix-run/react';
import type { z } from 'zod';
import type { InboxBusinessHoursSchema } from '~/models/automation/schemas';
import { ErrorList, SelectField } from '~/components/ui/forms';
import { FormActions } from '~/components/ui/settings-page';

/**
 * An inbox's business hours, on its settings page (any channel): the SLA due times of its conversations are
 * counted in them. Posts `intent=hours` to the page's own action, which hands it to submitInboxBusinessHours.
 */
export function InboxBusinessHoursForm({
  inboxId,
  current,
  options,
  locked,
  cancelTo,
  lastResult,
}: {
  inboxId: number;
  current: number | null;
  options: { value: string; label: string }[];
  locked: boolean;
  cancelTo: string;
  lastResult?: SubmissionResult<string[]>;
}) {
  // The server judges the form (ADR 027): the schema is a type here, so the pages using this form ship no zod for it.
  const [form, fields] = useForm<z.input<typeof InboxBusinessHoursSchema>>({
    id: `inbox-hours-${inboxId}`,
    lastResult,
    defaultValue: { businessHoursId: current ? String(current) : '' },
  });
  return (
    <section className="settings-page" aria-labelledby="inbox-hours-title">
      <header>
        <h2 id="inbox-hours-title">Business hours</h2>
      </header>
      <div className="card">
        <p className="muted">
          SLA due times of this inbox count only the open hours chosen here (around the clock without any). Hours are set up under{' '}
          <Link to="/settings/business-hours">Settings → Business Hours</Link>.
        </p>
        <Form method="post" {...getFormProps(form)} data-testid="inbox-hours-form">
          <fieldset disabled={locked} className="stack">
            <SelectField label="Business hours" field={fields.businessHoursId} options={options} placeholder="Around the clock" />
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={cancelTo} submitLabel="Save business hours" intent="hours" locked={locked} />
        </Form>
      </div>
    </section>
  );
}
