import { deliverMessage } from '../../app/models/channels/delivery.server';
// Channels register how they send (registerChannelDeliverer) when loaded: the engine loads every sending channel.
import '../../app/models/email/outbound.server';
import '../../app/models/channels/sms.server';
import '../../app/models/channels/facebook.server';
import '../../app/models/channels/twitter.server';
import '../../app/models/channels/google-business.server';
import { autoResolveConversation } from '../../app/models/channels/inbound.server';
import { emailChatReplyIfAway } from '../../app/models/channels/widget.server';
import { sendNotificationEmail, warnSlaDue } from '../../app/models/notifications/notifications.server';
import { sendNotificationPush } from '../../app/models/notifications/browser-push.server';
import { checkSlaBreach, type SlaTargetKind } from '../../app/models/automation/sla.server';
import { runContactImport } from '../../app/models/crm/imports.server';
import { runZendeskImport } from '../../app/models/knowledge-base/zendesk.server';
import { runCampaignSend } from '../../app/models/campaigns/sending.server';
import { importSourceReviews } from '../../app/models/reviews/reviews.server';
import { runEmailOccurrence, runEmailSend } from '../../app/models/surveys/email-surveys.server';
import { wakeSnoozedConversation } from '../../app/models/inbox/conversations.server';
import { sendMeetingReminder } from '../../app/models/meetings/bookings.server';
import { attemptWebhookDelivery } from '../../app/models/webhooks/webhooks.server';
import { runOrderImport } from '../../app/models/integrations/order-import.server';
import { ensureStoreWebhooks } from '../../app/models/integrations/shopify/webhook-check.server';
import { QUEUES, type WORK_QUEUES } from '../../app/utils/jobs.server';
import { isRequestId } from '../../app/utils/correlation.server';
import { rollUpAllAnalytics } from '../../app/models/analytics/rollup.server';
import { runScheduledBackup } from '../../app/models/operations/backups.server';
import { cleanUpAccountExports, runAccountExport } from '../../app/models/operations/account-export.server';
import { processEvent, processEventBatch, processEventBatchStaged } from '../events';
import type { BatchJobHandler, StagedBatchJobHandler } from '../worker';

/** What the engine does with each queue's jobs; handlers only call domain functions. */
export const JOB_HANDLERS: Record<(typeof WORK_QUEUES)[number], (data: Record<string, unknown>) => Promise<unknown>> = {
  [QUEUES.domainEvents]: (data) => processEvent(Number(data.eventId), undefined, typeof data.type === 'string' ? data.type : undefined),
  [QUEUES.channelDeliver]: (data) => deliverMessage({ messageId: Number(data.messageId) }),
  [QUEUES.snoozeWake]: (data) =>
    wakeSnoozedConversation({
      accountId: Number(data.accountId),
      conversationId: Number(data.conversationId),
    }),
  [QUEUES.contactImport]: (data) =>
    runContactImport({
      accountId: Number(data.accountId),
      importId: Number(data.importId),
    }),
  [QUEUES.channelAutoResolve]: (data) =>
    autoResolveConversation({
      accountId: Number(data.accountId),
      conversationId: Number(data.conversationId),
    }),
  [QUEUES.slaBreachCheck]: (data) =>
    checkSlaBreach({
      accountId: Number(data.accountId),
      conversationId: Number(data.conversationId),
      target: data.target as SlaTargetKind,
      dueAt: String(data.dueAt),
    }),
  [QUEUES.chatEmail]: (data) => emailChatReplyIfAway({ messageId: Number(data.messageId) }),
  [QUEUES.notificationEmail]: (data) =>
    sendNotificationEmail({ accountId: Number(data.accountId), userId: Number(data.userId), conversationId: Number(data.conversationId) }),
  [QUEUES.slaWarning]: (data) =>
    warnSlaDue({
      accountId: Number(data.accountId),
      conversationId: Number(data.conversationId),
      target: data.target as SlaTargetKind,
      dueAt: String(data.dueAt),
    }),
  [QUEUES.notificationPush]: (data) => sendNotificationPush({ accountId: Number(data.accountId), notificationId: Number(data.notificationId) }),
  [QUEUES.kbImport]: (data) => runZendeskImport({ accountId: Number(data.accountId), importId: Number(data.importId) }),
  [QUEUES.campaignSend]: (data) => runCampaignSend({ accountId: Number(data.accountId), campaignId: Number(data.campaignId) }),
  [QUEUES.meetingReminder]: (data) =>
    sendMeetingReminder({ accountId: Number(data.accountId), bookingId: Number(data.bookingId), minutes: Number(data.minutes), startsAt: String(data.startsAt) }),
  [QUEUES.reviewsImport]: (data) => importSourceReviews({ accountId: Number(data.accountId), sourceId: Number(data.sourceId), reschedule: true }),
  [QUEUES.surveyEmailOccurrence]: (data) =>
    runEmailOccurrence({ accountId: Number(data.accountId), surveyId: Number(data.surveyId), generation: Number(data.generation), at: String(data.at) }),
  [QUEUES.surveyEmailSend]: (data) => runEmailSend({ accountId: Number(data.accountId), sendId: Number(data.sendId) }),
  [QUEUES.webhookDeliver]: (data) => attemptWebhookDelivery({ accountId: Number(data.accountId), deliveryId: Number(data.deliveryId), manual: data.manual === true }),
  [QUEUES.integrationsOrderImport]: (data) => runOrderImport({ accountId: Number(data.accountId), importId: Number(data.importId) }),
  [QUEUES.integrationsWebhookCheck]: () => ensureStoreWebhooks({}),
  [QUEUES.analyticsRollup]: () => rollUpAllAnalytics(),
  [QUEUES.backupRun]: () => runScheduledBackup(),
  [QUEUES.accountExport]: (data) => runAccountExport({ accountId: Number(data.accountId), exportId: Number(data.exportId) }),
  [QUEUES.accountExportCleanup]: () => cleanUpAccountExports(),
};

/** Each job's event, and its correlation (ADR 150): the request that wrote the event, and the job. */
const eventItems = (datas: Record<string, unknown>[]) =>
  datas.map((data) => ({
    eventId: Number(data.eventId),
    type: typeof data.type === 'string' ? data.type : undefined,
    requestId: isRequestId(data.requestId) ? data.requestId : undefined,
    jobId: typeof data.jobId === 'string' ? data.jobId : undefined,
  }));

/** Queues whose fetched batches are worked whole (ADR 043): domain events, read and recorded a batch at a time. */
export const BATCH_JOB_HANDLERS: Partial<Record<(typeof WORK_QUEUES)[number], BatchJobHandler>> = {
  [QUEUES.domainEvents]: (datas) => processEventBatch(eventItems(datas)),
};

/** Queues whose batches are worked in two stages, the next batch's first beside this one's second (ADR 140). */
export const STAGED_JOB_HANDLERS: Partial<Record<(typeof WORK_QUEUES)[number], StagedBatchJobHandler>> = {
  [QUEUES.domainEvents]: (datas, after) => processEventBatchStaged(eventItems(datas), undefined, after),
};
