import { CopyField } from '~/components/ui/copy-button';
import type { FieldMetadata } from '@conform-to/react';
import { ErrorList } from '~/components/ui/forms';
import { WEBHOOK_EVENT_TYPES } from '~/models/webhooks/constants';

/** The event checkboxes of the webhook forms: plain checkboxes named like the conform field, showing back what was chosen. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function WebhookEventFields({ field }: { field: FieldMetadata<any, any, any> }) {
  const chosen = new Set(([] as unknown[]).concat(field.value ?? []).map(String));
  return (
    <fieldset className="field" aria-describedby={field.errors?.length ? field.errorId : undefined}>
      <legend>Events</legend>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(14rem, 1fr))', gap: '.25rem .75rem' }}>
        {WEBHOOK_EVENT_TYPES.map((t) => (
          <label key={t} className="check">
            <input type="checkbox" name={field.name} value={t} defaultChecked={chosen.has(t)} /> <code>{t.replace(/_(?=[a-z]+$)/, '.')}</code>
          </label>
        ))}
      </div>
      <ErrorList id={field.errorId} errors={field.errors} />
    </fieldset>
  );
}

/** A signing secret shown once (after creation or rotation). */
export function ShownOnceSecret({ secret, title }: { secret: string; title: string }) {
  return (
    <div role="status" data-testid="new-secret" className="stack" style={{ border: '1px solid var(--border)', borderRadius: 'var(--radius)', padding: '.75rem', marginBottom: '1rem' }}>
      <h2>{title}</h2>
      <p>Copy the signing secret now: it is not shown again. Verify each delivery's webhook-signature header with it (Standard Webhooks).</p>
      <CopyField id="shown-secret" label="Signing secret" value={secret} />
    </div>
  );
}
