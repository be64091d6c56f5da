import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { campaignEditorHandle, CampaignSendAndReport, useCampaignEditor } from '~/components/campaigns/send-controls';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { createSmsCampaign, getCampaign, listContactSegments, listSmsSenders, updateSmsCampaign } from '~/models/campaigns/campaigns.server';
import { campaignEditorAction } from '~/models/campaigns/intents.server';
import { SmsCampaignSchema } from '~/models/campaigns/schemas';
import { SMS_BODY_MAX, SMS_OPT_OUT_FOOTER, smsLength } from '~/models/campaigns/sms';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

const FEATURE = 'campaigns/smsCampaigns' as const;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, FEATURE, await requireUser(request));
  const id = readEditorParam(params.id);
  const accountId = ctx.account.id;
  const campaign = id === 'new' ? null : await getCampaign({ accountId, id, kind: 'sms' });
  if (campaign === undefined) throw new Response('Not Found', { status: 404 });
  const [segments, senders] = await Promise.all([listContactSegments({ accountId }), listSmsSenders({ accountId })]);
  return {
    campaign: campaign
      ? {
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          segmentId: campaign.segmentId,
          inboxId: campaign.inboxId,
          body: campaign.bodyText,
          timeZone: campaign.timeZone,
          started: Boolean(campaign.startedAt),
          figures: { recipients: campaign.recipientCount, sent: campaign.sentCount, failed: campaign.failedCount },
        }
      : null,
    segments,
    senders,
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
    kind: 'sms',
    schema: SmsCampaignSchema,
    create: createSmsCampaign,
    update: updateSmsCampaign,
  });
}

export const handle = campaignEditorHandle('New SMS Campaign');

export default function SmsCampaignPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <SmsCampaignEditor key={loaderData.campaign?.id ?? 'new'} {...loaderData} />;
}

function SmsCampaignEditor({ campaign, segments, senders, zones, me, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const { form, fields, disabled, header, scheduleReply } = useCampaignEditor<{ name: string; segmentId: string; inboxId: string; body: string }>({
    prefix: 'sms-campaign',
    newTitle: 'New SMS Campaign',
    campaign,
    locked,
    defaultValue: campaign
      ? { name: campaign.name, segmentId: campaign.segmentId ? String(campaign.segmentId) : '', inboxId: campaign.inboxId ? String(campaign.inboxId) : '', body: campaign.body }
      : { inboxId: senders[0] ? String(senders[0].id) : '' },
  });
  // The count is the server's for what was saved or sent back, and follows the typing once JavaScript runs.
  const [body, setBody] = useState(String(fields.body.initialValue ?? ''));
  const length = smsLength(`${body}${SMS_OPT_OUT_FOOTER}`);
  return (
    <section className="page stack campaign-editor">
      {header}
      {senders.length === 0 ? (
        <p className="card" role="note">
          SMS campaigns are sent through one of your SMS inboxes. <Link to="/settings/sms">Add an SMS inbox</Link> first.
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="card stack">
        <h2>Message</h2>
        <fieldset disabled={disabled} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" />
          <SelectField label="Segment" field={fields.segmentId} placeholder="Choose a segment" options={segments.map((s) => ({ value: String(s.id), label: s.name }))} />
          <SelectField label="SMS inbox" field={fields.inboxId} placeholder="Choose an SMS inbox" options={senders.map((s) => ({ value: String(s.id), label: s.name }))} />
          <div className="field">
            <label htmlFor={fields.body.id}>Message</label>
            <textarea
              id={fields.body.id}
              name={fields.body.name}
              defaultValue={String(fields.body.initialValue ?? '')}
              rows={5}
              maxLength={SMS_BODY_MAX}
              aria-invalid={fields.body.errors ? true : undefined}
              aria-describedby={`${fields.body.id}-count ${fields.body.errorId}`}
              onChange={(e) => setBody(e.currentTarget.value)}
            />
            <small className="muted" id={`${fields.body.id}-count`} data-testid="sms-count">
              {length.characters} characters, {length.segments} {length.segments === 1 ? 'message' : 'messages'} ({length.encoding}), with the line &quot;Reply STOP to opt
              out.&quot; added to every text. Contacts without a phone number, and numbers that replied STOP, are left out.
            </small>
            <ErrorList id={fields.body.errorId} errors={fields.body.errors} />
          </div>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        {disabled ? null : (
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="save">
              {campaign ? 'Update' : 'Create'}
            </button>
            <Link to="/campaigns/sms" className="btn">
              Cancel
            </Link>
          </div>
        )}
      </Form>
      <CampaignSendAndReport campaign={campaign} locked={locked} defaultTimeZone={me.timezone} zones={zones} reply={scheduleReply} />
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.campaign?.name ?? 'New SMS Campaign', 'Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
