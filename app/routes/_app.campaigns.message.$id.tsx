import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { campaignEditorHandle, CampaignEditorHeader, CampaignSendAndReport } from '~/components/campaigns/send-controls';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { createMessageCampaign, getCampaign, listContactSegments, listMessageOptions, updateMessageCampaign } from '~/models/campaigns/campaigns.server';
import { chatCampaignConversations } from '~/models/campaigns/chat.server';
import { CHAT_MESSAGE_MAX, EDITABLE_STATUSES } from '~/models/campaigns/constants';
import { campaignEditorAction, type CampaignActionResult } from '~/models/campaigns/intents.server';
import { MessageCampaignSchema } from '~/models/campaigns/schemas';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

const FEATURE = 'campaigns/chatMessaging' as const;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, FEATURE, await requireUser(request));
  const id = readEditorParam(params.id);
  const accountId = ctx.account.id;
  const campaign = id === 'new' ? null : await getCampaign({ accountId, id, kind: 'message' });
  if (campaign === undefined) throw new Response('Not Found', { status: 404 });
  const [segments, options, conversations] = await Promise.all([
    listContactSegments({ accountId }),
    listMessageOptions({ accountId }),
    campaign?.startedAt ? chatCampaignConversations({ accountId, campaignId: campaign.id }) : [],
  ]);
  const chat = campaign?.chat;
  return {
    campaign: campaign
      ? {
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          timeZone: campaign.timeZone,
          started: Boolean(campaign.startedAt),
          figures: { shown: campaign.sentCount, replied: campaign.repliedCount },
          values: {
            name: campaign.name,
            inboxId: campaign.inboxId ? String(campaign.inboxId) : '',
            segmentId: campaign.segmentId ? String(campaign.segmentId) : '',
            senderUserId: chat?.senderUserId ? String(chat.senderUserId) : '',
            body: campaign.bodyText,
            pages: (chat?.pages ?? []).map((p) => p.link).join('\n'),
            pageMatch: chat?.pages[0]?.linkType ?? 'contain',
            delaySeconds: String(chat?.delaySeconds ?? 0),
            visitor: chat?.visitor ?? 'any',
            businessHoursOnly: chat?.businessHoursOnly ? 'on' : '',
          },
        }
      : null,
    conversations: conversations.map((c) => ({ id: c.conversationId!, subject: c.subject })),
    segments,
    ...options,
    zones: timeZoneNames(),
    me: { id: ctx.user.id, timezone: ctx.user.timezone ?? 'UTC' },
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
    kind: 'message',
    schema: MessageCampaignSchema,
    create: createMessageCampaign,
    update: updateMessageCampaign,
  });
}

export const handle = campaignEditorHandle('New Message Campaign');

export default function MessageCampaignPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <MessageCampaignEditor key={loaderData.campaign?.id ?? 'new'} {...loaderData} />;
}

function MessageCampaignEditor({ campaign, conversations, segments, inboxes, agents, zones, me, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const actionData = useActionData<typeof action>() as CampaignActionResult | undefined;
  const editable = !campaign || (EDITABLE_STATUSES as readonly string[]).includes(campaign.status);
  const [form, fields] = useForm({
    id: `message-campaign-${campaign?.id ?? 'new'}`,
    lastResult: actionData?.form === 'campaign' ? actionData.reply : undefined,
    defaultValue: campaign?.values ?? {
      inboxId: inboxes[0] ? String(inboxes[0].id) : '',
      senderUserId: String(me.id),
      pageMatch: 'contain',
      delaySeconds: '0',
      visitor: 'any',
    },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const disabled = locked || !editable;
  return (
    <section className="page stack campaign-editor">
      <CampaignEditorHeader
        title={campaign ? campaign.name : 'New Message Campaign'}
        status={campaign?.status}
        statusLabel={campaign?.status === 'sending' ? 'Live' : undefined}
        error={actionData?.form === 'status' ? actionData.error : undefined}
        locked={locked}
      />
      {inboxes.length === 0 ? (
        <p className="card" role="note">
          A message campaign shows in your messenger. <Link to="/settings/chat-messenger">Set up the messenger</Link> first.
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="card stack">
        <h2>Message</h2>
        <fieldset disabled={disabled} className="stack">
          <Field label="Name" field={fields.name} autoComplete="off" />
          <SelectField label="Messenger" field={fields.inboxId} placeholder="Choose a website inbox" options={inboxes.map((i) => ({ value: String(i.id), label: i.name }))} />
          <SelectField label="Sender" field={fields.senderUserId} placeholder="Choose an agent" options={agents.map((a) => ({ value: String(a.id), label: a.name }))} />
          <TextareaField label="Message" field={fields.body} rows={4} maxLength={CHAT_MESSAGE_MAX} />
        </fieldset>
        <fieldset disabled={disabled} className="stack">
          <legend>Who sees it</legend>
          <SelectField label="Segment" field={fields.segmentId} placeholder="Every visitor" options={segments.map((s) => ({ value: String(s.id), label: s.name }))} />
          <SelectField
            label="Visitors"
            field={fields.visitor}
            options={[
              { value: 'any', label: 'New and returning' },
              { value: 'new', label: 'New visitors' },
              { value: 'returning', label: 'Returning visitors' },
            ]}
          />
          <TextareaField label="Pages (one link or path per line; empty for every page)" field={fields.pages} rows={3} />
          <SelectField
            label="Pages match when the address"
            field={fields.pageMatch}
            options={[
              { value: 'contain', label: 'contains it' },
              { value: 'exact', label: 'is exactly it' },
              { value: 'start', label: 'starts with it' },
              { value: 'end', label: 'ends with it' },
            ]}
          />
          <Field label="Seconds on the page before it shows" type="number" min={0} max={3600} field={fields.delaySeconds} />
          <CheckboxField label="Only during business hours" field={fields.businessHoursOnly} />
          <p className="muted">Each visitor sees it once. A reply opens a conversation in the inbox.</p>
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        {disabled ? null : (
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value="save">
              {campaign ? 'Update' : 'Create'}
            </button>
            <Link to="/campaigns/message" className="btn">
              Cancel
            </Link>
          </div>
        )}
      </Form>
      <CampaignSendAndReport campaign={campaign} locked={locked} defaultTimeZone={me.timezone} zones={zones} reply={actionData?.form === 'schedule' ? actionData.reply : undefined}>
        {conversations.length ? (
          <ul className="stack" aria-label="Replies">
            {conversations.map((c) => (
              <li key={c.id}>
                <Link to={`/inbox/${c.id}`}>{c.subject}</Link>
              </li>
            ))}
          </ul>
        ) : null}
      </CampaignSendAndReport>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.campaign?.name ?? 'New Message Campaign', 'Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
