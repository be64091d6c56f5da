import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useBlockDesigner } from '~/components/campaigns/block-designer-switch';
import { useHtmlDesigner } from '~/components/campaigns/html-designer';
import { campaignEditorHandle, CampaignEditorHeader, CampaignReportTables, CampaignSendAndReport } from '~/components/campaigns/send-controls';
import { campaignEditorAction, type CampaignActionResult } from '~/models/campaigns/intents.server';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import {
  campaignReport,
  createEmailCampaign,
  getCampaign,
  listContactSegments,
  listEmailSenders,
  updateEmailCampaign,
} from '~/models/campaigns/campaigns.server';
import { CAMPAIGN_TOASTS, EDITABLE_STATUSES } from '~/models/campaigns/constants';
import { EmailCampaignSchema, TestEmailSchema } from '~/models/campaigns/schemas';
import { sendCampaignTest } from '~/models/campaigns/sending.server';
import { listCampaignTemplates } from '~/models/campaigns/templates.server';
import { TEMPLATE_PLACEHOLDERS } from '~/models/productivity/templates';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle, timeZoneNames } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/campaigns/email';
const FEATURE = 'campaigns/emailCampaigns' as const;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, FEATURE, await requireUser(request));
  const id = readEditorParam(params.id);
  const accountId = ctx.account.id;
  const campaign = id === 'new' ? null : await getCampaign({ accountId, id, kind: 'email' });
  if (campaign === undefined) throw new Response('Not Found', { status: 404 });
  const [segments, senders, templates, report] = await Promise.all([
    listContactSegments({ accountId }),
    listEmailSenders({ accountId }),
    listCampaignTemplates({ accountId }),
    campaign?.startedAt ? campaignReport({ accountId, id: campaign.id }) : Promise.resolve(null),
  ]);
  return {
    campaign: campaign
      ? {
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          segmentId: campaign.segmentId,
          inboxId: campaign.inboxId,
          templateId: campaign.templateId,
          subject: campaign.subject,
          bodyHtml: campaign.bodyHtml,
          textDesign: campaign.textDesign,
          trackOpens: campaign.trackOpens,
          trackClicks: campaign.trackClicks,
          scheduledAt: campaign.scheduledAt,
          timeZone: campaign.timeZone,
          figures: {
            recipients: campaign.recipientCount,
            delivered: campaign.sentCount,
            bounced: campaign.bouncedCount,
            complained: campaign.complainedCount,
            opened: campaign.openedCount,
            clicked: campaign.clickedCount,
            unsubscribed: campaign.unsubscribedCount,
            replied: campaign.repliedCount,
          },
        }
      : null,
    segments,
    senders,
    templates,
    report,
    zones: timeZoneNames(),
    me: { email: ctx.user.email, timezone: ctx.user.timezone ?? 'UTC' },
    user: publicUser(ctx),
    locked: !can(ctx, 'manage_campaigns'),
  };
}

type ActionResult = CampaignActionResult;

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, FEATURE, await requirePermission(request, 'manage_campaigns'));
  const formData = await request.formData();
  return campaignEditorAction({
    formData,
    accountId: ctx.account.id,
    actorId: ctx.user.id,
    id: readEditorParam(params.id),
    kind: 'email',
    schema: EmailCampaignSchema,
    create: createEmailCampaign,
    update: updateEmailCampaign,
    extra: async (intent, id) => {
      if (intent !== 'test') return undefined;
      const submission = parseWithZod(formData, { schema: TestEmailSchema });
      if (submission.status !== 'success') return data<ActionResult>({ form: 'test', reply: submission.reply() }, { status: 400 });
      const campaign = await getCampaign({ accountId: ctx.account.id, id, kind: 'email' });
      if (!campaign) throw new Response('Not Found', { status: 404 });
      await sendCampaignTest({ campaign, to: submission.value.testTo, contact: { firstName: ctx.user.firstName, lastName: ctx.user.lastName, email: submission.value.testTo } });
      return redirectWithToast(`/campaigns/email/${id}`, CAMPAIGN_TOASTS.testSent);
    },
  });
}

export const handle = campaignEditorHandle('New Email Campaign');

export default function EmailCampaignPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <EmailCampaignEditor key={loaderData.campaign?.id ?? 'new'} {...loaderData} />;
}

function EmailCampaignEditor({ campaign, segments, senders, templates, report, zones, me, user, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const actionData = useActionData<typeof action>() as ActionResult | undefined;
  const editable = !campaign || (EDITABLE_STATUSES as readonly string[]).includes(campaign.status);
  const [form, fields] = useForm({
    id: `email-campaign-${campaign?.id ?? 'new'}`,
    lastResult: actionData?.form === 'campaign' ? actionData.reply : undefined,
    defaultValue: campaign
      ? {
          name: campaign.name,
          segmentId: campaign.segmentId ? String(campaign.segmentId) : '',
          inboxId: campaign.inboxId ? String(campaign.inboxId) : '',
          templateId: campaign.templateId ? String(campaign.templateId) : '',
          subject: campaign.subject,
          bodyHtml: campaign.bodyHtml,
          trackOpens: campaign.trackOpens ? 'on' : undefined,
          trackClicks: campaign.trackClicks ? 'on' : undefined,
        }
      : { trackOpens: 'on', trackClicks: 'on', inboxId: senders[0] ? String(senders[0].id) : '' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const [testForm, testFields] = useForm({
    id: 'test',
    lastResult: actionData?.form === 'test' ? actionData.reply : undefined,
    defaultValue: { testTo: me.email },
    shouldValidate: 'onSubmit',
  });
  // The block designer writes the body's html; the campaign keeps its blocks as templates do (ADR 095).
  const blocks = useBlockDesigner(fields.bodyHtml.id, campaign?.textDesign, editable && !locked);
  const designer = useHtmlDesigner(fields.bodyHtml.id, editable && !locked && !blocks.on);
  const disabled = locked || !editable;
  return (
    <section className="page stack campaign-editor">
      <CampaignEditorHeader title={campaign ? campaign.name : 'New Email Campaign'} status={campaign?.status} error={actionData?.form === 'status' ? actionData.error : undefined} locked={locked} />
      {campaign?.scheduledAt && campaign.status === 'scheduled' ? (
        <p data-testid="scheduled-for">
          Scheduled for {formatDateTime(campaign.scheduledAt, { ...user, timezone: campaign.timeZone ?? user.timezone })} ({campaign.timeZone ?? 'UTC'})
        </p>
      ) : null}
      {segments.length === 0 ? (
        <p className="card" role="note">
          Email campaigns go to a segment of contacts. <Link to="/customers">Create a segment in CRM</Link> first.
        </p>
      ) : null}
      {senders.length === 0 ? (
        <p className="card" role="note">
          Email campaigns are sent from one of your email inboxes. <Link to="/settings/emails">Add an email inbox</Link> first.
        </p>
      ) : null}

      <Form method="post" {...getFormProps(form)} className="card stack">
        <h2>Message</h2>
        <fieldset disabled={disabled} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" />
          <SelectField label="Segment" field={fields.segmentId} placeholder="Choose a segment" options={segments.map((s) => ({ value: String(s.id), label: `${s.name}${s.isStatic ? ' (static)' : ''}` }))} />
          <SelectField label="Sender" field={fields.inboxId} placeholder="Choose a sender" options={senders.map((s) => ({ value: String(s.id), label: `${s.name} <${s.email}>` }))} />
          <SelectField label="Template" field={fields.templateId} placeholder="No template" options={templates.map((t) => ({ value: String(t.id), label: t.name }))} />
          <Field label="Subject" field={fields.subject} autoComplete="off" />
          {blocks.control}
          <TextareaField label={designer ? 'Body' : 'Body (HTML)'} field={fields.bodyHtml} rows={12} />
          {blocks.field}
          <small className="muted">
            Leave the body empty to use the template&apos;s. Placeholders: {TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}. Every email gets an
            unsubscribe link.
          </small>
          <CheckboxField label="Track opens (a 1-pixel image)" field={fields.trackOpens} />
          <CheckboxField label="Track clicks (links go through a signed redirect)" field={fields.trackClicks} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        {disabled ? null : (
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="save">
              {campaign ? 'Update' : 'Create'}
            </button>
            <Link to={LIST} className="btn">
              Cancel
            </Link>
          </div>
        )}
      </Form>

      <CampaignSendAndReport
        campaign={campaign ? { ...campaign, started: Boolean(report) } : null}
        locked={locked}
        defaultTimeZone={me.timezone}
        zones={zones}
        reply={actionData?.form === 'schedule' ? actionData.reply : undefined}
        afterSend={
          <Form method="post" {...getFormProps(testForm)} className="card stack" aria-label="Send a test">
            <h2>Send a test to yourself</h2>
            <Field label="Email" type="email" field={testFields.testTo} />
            <div className="row">
              <button type="submit" className="btn" name="intent" value="test">
                Send test
              </button>
            </div>
          </Form>
        }
      >
        {report ? <CampaignReportTables report={report} /> : null}
      </CampaignSendAndReport>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.campaign?.name ?? 'New Email Campaign', 'Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
