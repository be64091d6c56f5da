import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form } from '@remix-run/react';
import { ErrorList, Field } from '~/components/ui/forms';
import { formatDateTime } from '~/utils/format';

/** What the settings page knows of the latest import of past orders (ADR 118). */
export type OrderImportView = {
  status: 'queued' | 'running' | 'done' | 'failed';
  since: string | Date | null;
  pages: number;
  seen: number;
  recorded: number;
  existing: number;
  skipped: number;
  message: string | null;
  createdAt: string | Date;
  finishedAt: string | Date | null;
};

type Prefs = Parameters<typeof formatDateTime>[1];

function describe(i: OrderImportView, label: string, prefs: Prefs) {
  const counts = `${i.seen} order${i.seen === 1 ? '' : 's'} read in ${i.pages} page${i.pages === 1 ? '' : 's'}, ${i.recorded} sale${i.recorded === 1 ? '' : 's'} recorded, ${i.existing} already counted, ${i.skipped} not sales (cancelled, declined or without an amount)`;
  if (i.status === 'queued') return `Queued at ${formatDateTime(i.createdAt, prefs)}; it starts in a moment. Reload this page to see its progress.`;
  if (i.status === 'running') return `Running: ${counts} so far. Reload this page to see its progress.`;
  if (i.status === 'done') return `Done at ${formatDateTime(i.finishedAt ?? i.createdAt, prefs)}: ${counts}.`;
  return `Failed: ${i.message ?? `${label} could not be read`}. Before it stopped: ${counts}. Nothing was counted twice; run it again when ${label} answers.`;
}

/** Settings → Integrations → Shopify/BigCommerce: import past orders as sales, and the latest import's progress or result. */
export function OrderImportCard({ label, latest, lastResult, prefs }: { label: string; latest: OrderImportView | null; lastResult: SubmissionResult<string[]> | undefined; prefs: Prefs }) {
  const [form, fields] = useForm<{ since: string }>({ id: 'order-import', lastResult, shouldValidate: 'onSubmit' });
  const busy = latest?.status === 'queued' || latest?.status === 'running';
  return (
    <section className="card" data-testid="order-import">
      <h2>Past orders</h2>
      <p className="muted">
        Record the store&apos;s past orders as sales for the Ecommerce analytics. An order counted already (by its webhook or an earlier import) is not
        counted again; cancelled and declined orders are not sales.
      </p>
      {latest ? (
        <p data-testid="order-import-status" role={latest.status === 'failed' ? 'alert' : 'status'} className={latest.status === 'failed' ? 'field-error' : undefined}>
          {describe(latest, label, prefs)}
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <Field label="Orders since" field={fields.since} type="date" hint="Optional: only orders placed on or after this day" />
        <ErrorList errors={form.errors} />
        <button type="submit" className="btn" name="intent" value="import-orders" disabled={busy}>
          Import past orders
        </button>
      </Form>
    </section>
  );
}
