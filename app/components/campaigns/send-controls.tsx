import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import type { ReactNode } from 'react';
import { Form, Link, useActionData } from '@remix-run/react';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { EDITABLE_STATUSES, STATUS_LABELS, TRANSITIONS, type CampaignStatus } from '~/models/campaigns/constants';
import { ROLE_LOCKED_MESSAGE } from '~/models/shell/denied-messages';

/** Send now or schedule in a time zone, then the status changes the campaign's status allows (ADR 064). */
export function SendControls({
  status,
  campaignId,
  timeZone,
  zones,
  reply,
}: {
  status: CampaignStatus;
  campaignId: number;
  timeZone: string;
  zones: string[];
  reply?: SubmissionResult<string[]>;
}) {
  const [form, fields] = useForm({
    id: 'schedule',
    lastResult: reply,
    defaultValue: { when: 'now', scheduledAt: '', timeZone },
    shouldValidate: 'onSubmit',
  });
  const can = (t: keyof typeof TRANSITIONS) => (TRANSITIONS[t] as readonly string[]).includes(status);
  return (
    <>
      {can('schedule') ? (
        <Form method="post" {...getFormProps(form)} className="card stack" aria-label="Send">
          <h2>Send</h2>
          <fieldset className="stack">
            <legend className="visually-hidden">When</legend>
            <label className="check">
              <input type="radio" name={fields.when.name} value="now" defaultChecked={fields.when.initialValue !== 'later'} /> Send now
            </label>
            <label className="check">
              <input type="radio" name={fields.when.name} value="later" defaultChecked={fields.when.initialValue === 'later'} /> Schedule
            </label>
            <ErrorList id={fields.when.errorId} errors={fields.when.errors} />
          </fieldset>
          <Field label="Date and time" type="datetime-local" field={fields.scheduledAt} />
          <SelectField label="Time zone" field={fields.timeZone} options={zones.map((z) => ({ value: z, label: z }))} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="schedule">
              Send or schedule
            </button>
          </div>
        </Form>
      ) : null}
      <div className="row wrap" aria-label="Status">
        {can('unschedule') ? <StatusButton intent="unschedule" label="Unschedule" /> : null}
        {can('pause') ? <StatusButton intent="pause" label="Pause" /> : null}
        {can('resume') ? <StatusButton intent="resume" label="Resume" /> : null}
        {can('cancel') ? (
          <DeleteConfirm id="cancel-campaign" intent="cancel" label="Cancel campaign" title="Cancel campaign" text="Nobody else gets this campaign once it is cancelled." confirmLabel="Cancel campaign" />
        ) : null}
        {status !== 'sending' ? <DeleteConfirm id={`campaign-${campaignId}`} label="Delete" /> : null}
      </div>
    </>
  );
}

function StatusButton({ intent, label }: { intent: string; label: string }) {
  return (
    <Form method="post">
      <button type="submit" className="btn" name="intent" value={intent}>
        {label}
      </button>
    </Form>
  );
}

/** The report's figures: one definition list for every kind of campaign. */
export function CampaignFigures({ figures }: { figures: Record<string, number> }) {
  return (
    <dl className="figures row wrap">
      {Object.entries(figures).map(([k, v]) => (
        <div key={k} data-testid={`figure-${k}`}>
          <dt className="muted">{k[0].toUpperCase() + k.slice(1)}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

type EditorActionResult = { form: 'campaign' | 'schedule' | 'test' | 'status'; reply?: SubmissionResult<string[]>; error?: string };

/**
 * The top of every campaign editor (email, SMS, message, push): the action's answer, whether the campaign can still
 * be edited, its conform form (validated on the server, ADR 027) and its header. The kinds differ only in fields.
 */
export function useCampaignEditor<Shape extends Record<string, unknown>>(opts: {
  prefix: string;
  newTitle: string;
  campaign: { id: number; name: string; status: CampaignStatus } | null;
  defaultValue: Partial<Shape>;
  locked: boolean;
  statusLabel?: string;
}) {
  const actionData = useActionData() as EditorActionResult | undefined;
  const editable = !opts.campaign || (EDITABLE_STATUSES as readonly string[]).includes(opts.campaign.status);
  const [form, fields] = useForm<Shape>({
    id: `${opts.prefix}-${opts.campaign?.id ?? 'new'}`,
    lastResult: actionData?.form === 'campaign' ? actionData.reply : undefined,
    defaultValue: opts.defaultValue as never,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const header = (
    <CampaignEditorHeader
      title={opts.campaign ? opts.campaign.name : opts.newTitle}
      status={opts.campaign?.status}
      statusLabel={opts.statusLabel}
      error={actionData?.form === 'status' ? actionData.error : undefined}
      locked={opts.locked}
    />
  );
  return { actionData, editable, disabled: opts.locked || !editable, form, fields, header, scheduleReply: actionData?.form === 'schedule' ? actionData.reply : undefined };
}

/** The breadcrumb of a campaign editor: the campaign's name, or the new kind's title. */
export function campaignEditorHandle(newTitle: string) {
  return { breadcrumb: (loaderData: { campaign: { name: string } | null } | undefined) => (loaderData ? (loaderData.campaign?.name ?? newTitle) : null) };
}

/**
 * The head of a campaign editor: its name (or the new kind's title), its status, the way back to all campaigns, a
 * refused status change's message and the locked note.
 */
export function CampaignEditorHeader(props: { title: string; status?: CampaignStatus; statusLabel?: string; error?: string; locked: boolean }) {
  return (
    <>
      <header className="row wrap">
        <h1>{props.title}</h1>
        {props.status ? (
          <span className={`pill status-${props.status}`} data-testid="campaign-status">
            {props.statusLabel ?? STATUS_LABELS[props.status]}
          </span>
        ) : null}
        <div className="spacer" />
        <Link to="/campaigns" className="btn">
          All campaigns
        </Link>
      </header>
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
      {props.locked ? <p className="muted">{ROLE_LOCKED_MESSAGE}</p> : null}
    </>
  );
}

/**
 * The lower half of every campaign editor: the send controls (once the campaign is saved and the person may manage
 * campaigns) and, once it has started, its report with the kind's figures and anything the kind adds below them.
 */
export function CampaignSendAndReport(props: {
  campaign: { id: number; status: CampaignStatus; timeZone: string | null; started: boolean; figures: Record<string, number> } | null;
  locked: boolean;
  defaultTimeZone: string;
  zones: string[];
  reply?: SubmissionResult<string[]>;
  /** Shown under the send controls to those who may send (the email test send). */
  afterSend?: ReactNode;
  children?: ReactNode;
}) {
  const { campaign } = props;
  if (!campaign) return null;
  return (
    <>
      {props.locked ? null : (
        <>
          <SendControls
            status={campaign.status}
            campaignId={campaign.id}
            timeZone={campaign.timeZone ?? props.defaultTimeZone}
            zones={props.zones}
            reply={props.reply}
          />
          {props.afterSend}
        </>
      )}
      {campaign.started ? (
        <section className="card stack" aria-label="Report" data-testid="campaign-report">
          <h2>Report</h2>
          <CampaignFigures figures={campaign.figures} />
          {props.children}
        </section>
      ) : null}
    </>
  );
}

/** Clicks per link and events per day (campaignReport): under the figures of the kinds that track them. */
export function CampaignReportTables({ report }: { report: { links: { url: string; clicks: number }[]; days: { day: string; kind: string; n: number }[] } }) {
  return (
    <>
      {report.links.length ? (
        <div className="table-wrap">
          <table className="table">
            <caption>Clicks per link</caption>
            <thead>
              <tr>
                <th>Link</th>
                <th>Clicks</th>
              </tr>
            </thead>
            <tbody>
              {report.links.map((l) => (
                <tr key={l.url}>
                  <td style={{ wordBreak: 'break-all' }}>{l.url}</td>
                  <td>{l.clicks}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {report.days.length ? (
        <div className="table-wrap">
          <table className="table">
            <caption>Over time</caption>
            <thead>
              <tr>
                <th>Day</th>
                <th>Event</th>
                <th>Count</th>
              </tr>
            </thead>
            <tbody>
              {report.days.map((d) => (
                <tr key={`${d.day}-${d.kind}`}>
                  <td>{d.day}</td>
                  <td>{d.kind}</td>
                  <td>{d.n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
