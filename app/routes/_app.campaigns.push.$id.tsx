import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { campaignEditorHandle, CampaignSendAndReport, useCampaignEditor } from '~/components/campaigns/send-controls';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { FormActions } from '~/components/ui/settings-page';
import { ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { campaignReport, createPushCampaign, getCampaign, updatePushCampaign } from '~/models/campaigns/campaigns.server';
import { campaignEditorAction } from '~/models/campaigns/intents.server';
import { PUSH_BODY_MAX, PUSH_TITLE_MAX } from '~/models/campaigns/push-constants';
import { PushCampaignSchema } from '~/models/campaigns/push-schemas';
import { pushSegmentOptions } from '~/models/campaigns/push-segments.server';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

/** Push campaigns (ADR 083): the plan flag campaigns/webPush (ADR 114). */
const FEATURE = 'campaigns/webPush' as const;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, FEATURE, await requireUser(request));
  const id = readEditorParam(params.id);
  const accountId = ctx.account.id;
  const campaign = id === 'new' ? null : await getCampaign({ accountId, id, kind: 'push' });
  if (campaign === undefined) throw new Response('Not Found', { status: 404 });
  return {
    campaign: campaign
      ? {
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          pushSegmentId: campaign.pushSegmentId,
          title: campaign.subject,
          body: campaign.bodyText,
          url: campaign.push?.url ?? '',
          icon: campaign.push?.icon ?? '',
          timeZone: campaign.timeZone,
          started: Boolean(campaign.startedAt),
          figures: {
            recipients: campaign.recipientCount,
            sent: campaign.sentCount,
            delivered: campaign.deliveredCount,
            clicked: campaign.clickedCount,
            expired: campaign.failedCount,
          },
        }
      : null,
    segments: await pushSegmentOptions({ accountId }),
    report: campaign?.startedAt ? await campaignReport({ accountId, id: campaign.id }) : null,
    zones: timeZoneNames(),
    me: { timezone: ctx.user.timezone ?? 'UTC' },
    locked: !can(ctx, 'manage_campaigns'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, FEATURE, await requirePermission(request, 'manage_campaigns'));
  return campaignEditorAction({
    formData: await request.formData(),
    accountId: ctx.account.id,
    actorId: ctx.user.id,
    id: readEditorParam(params.id),
    kind: 'push',
    schema: PushCampaignSchema,
    create: createPushCampaign,
    update: updatePushCampaign,
  });
}

export const handle = campaignEditorHandle('New Push Campaign');

export default function PushCampaignPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <PushCampaignEditor key={loaderData.campaign?.id ?? 'new'} {...loaderData} />;
}

function PushCampaignEditor({ campaign, segments, report, zones, me, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const { form, fields, disabled, header, scheduleReply } = useCampaignEditor<{ name: string; pushSegmentId: string; title: string; body: string; url: string; icon: string }>({
    prefix: 'push-campaign',
    newTitle: 'New Push Campaign',
    campaign,
    locked,
    defaultValue: campaign
      ? { name: campaign.name, pushSegmentId: campaign.pushSegmentId ? String(campaign.pushSegmentId) : '', title: campaign.title, body: campaign.body, url: campaign.url, icon: campaign.icon }
      : {},
  });
  return (
    <section className="page stack campaign-editor">
      {header}
      {segments.length === 0 ? (
        <p className="card" role="note">
          A push campaign goes to a push segment. <Link to="/campaigns/push-segment/new">Create a push segment</Link> first.
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="card stack">
        <h2>Notification</h2>
        <fieldset disabled={disabled} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" />
          <SelectField
            label="Push segment"
            field={fields.pushSegmentId}
            placeholder="Choose a push segment"
            options={segments.map((s) => ({ value: String(s.id), label: s.name }))}
          />
          <Field label="Title" field={fields.title} autoComplete="off" maxLength={PUSH_TITLE_MAX} />
          <TextareaField label="Message" field={fields.body} rows={3} maxLength={PUSH_BODY_MAX} />
          <Field label="Link" type="url" field={fields.url} hint="The page a click on the notification opens (clicks are counted on the way)." />
          <Field label="Icon (optional)" type="url" field={fields.icon} hint="An https address of a square image, 192 × 192 pixels or more." />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        {disabled ? null : <FormActions cancelTo="/campaigns" submitLabel={campaign ? 'Update' : 'Create'} intent="save" />}
      </Form>
      <CampaignSendAndReport
        campaign={campaign}
        locked={locked}
        defaultTimeZone={me.timezone}
        zones={zones}
        reply={scheduleReply}
      />
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.campaign?.name ?? 'New Push Campaign', 'Campaigns') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
