import { getFormProps, getInputProps, getTextareaProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { filesOf, readFormWithFiles } from '~/models/inbox/reply-form.server';
import { listAttachmentsOfTemplates, templateFilesForReply } from '~/models/productivity/template-attachments.server';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useCallback, useRef, useState } from 'react';
import { MergeForm, SnoozeForm, TagsForm } from '~/components/inbox/operations';
import { PriorityPill, SlaPill, StatusPill, personName } from '~/components/inbox/pills';
import { formatSize, ThreadItem, type ThreadMessage } from '~/components/inbox/thread';
import { MergeConfirm } from '~/components/inbox/merge-confirm';
import { ReplyMedia } from '~/components/inbox/reply-media';
import { PropertiesForm } from '~/components/inbox/properties';
import { updateConversationProperties } from '~/models/inbox/properties.server';
import { MentionSuggestions } from '~/components/inbox/mention-suggestions';
import { ShortcutsHelp, useConversationShortcuts } from '~/components/inbox/shortcuts';
import { TemplateList } from '~/components/inbox/template-list';
import { ArticleLinks } from '~/components/inbox/article-links';
import { attachableArticlesFor } from '~/models/knowledge-base/attach.server';
import { usePresence } from '~/components/inbox/use-inbox-live';
import { useLiveRevalidation } from '~/components/shell/use-live';
import { WidgetTyping } from '~/components/messenger/agent-typing';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import {
  assignConversations,
  deleteConversations,
  getConversation,
  InvalidReferenceError,
  mergeConversations,
  moveConversations,
  setConversationPriority,
  setConversationStatus,
  snoozeConversation,
  splitMessage,
  tagConversations,
  untagConversation,
} from '~/models/inbox/conversations.server';
import { MERGE_NEEDS_TWO, REPLY_INTENTS, SNOOZE_IN_FUTURE, SNOOZE_TIME_REQUIRED, STATUS_AFTER_REPLY } from '~/models/inbox/form-constants';
import { AssignSchema, dateToZonedInput, EditMessageSchema, MergeSchema, MessageRefSchema, MoveSchema, PrioritySchema, PropertiesSchema, ReplySchema, SnoozeSchema, StatusSchema, TagSchema, zonedInputToDate } from '~/models/inbox/forms';
import { describeLine, listConversationRuns, RUN_STATE_LABELS } from '~/models/automation/run-history.server';
import { renderEmailHtml } from '~/models/email/render.server';
import { MAX_ATTACHMENT_BYTES, MAX_MESSAGE_ATTACHMENT_BYTES } from '~/models/inbox/attachments.server';
import { inlineAttachmentIds, MAX_AUDIO_BYTES, MAX_INLINE_IMAGE_BYTES, MAX_INLINE_IMAGES, MediaFileError, mediaKind } from '~/models/inbox/inline-media.server';
import { deleteMessage, editMessage, getMessage, isMessageEditable, listThread, MessageNotEditableError } from '~/models/inbox/messages.server';
import {
  MAX_REPLY_FILES,
  postMessageWithFiles,
  ReplyFileError,
} from '~/models/inbox/replies.server';
import {
  describeMergeSources,
  findMergeTarget,
  findNeighbourConversations,
  findOwnConversationIds,
  listMessageAttachments,
  readConversationPage,
  searchMergeCandidates,
} from '~/models/inbox/screens.server';
import { getCannedResponse } from '~/models/productivity/canned-responses.server';
import { renderTemplate } from '~/models/productivity/templates';
import { mentionHandle } from '~/models/notifications/mentions';
import { formatDateTime, pageTitle, truncate } from '~/utils/format';
import { formatHoursMinutes } from '~/utils/duration';
import { formatPhone } from '~/utils/phone-format';
import { parseRouteId } from '~/utils/route-id';
import { can, canUseFeature, publicUser, requirePermission, requireUser } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { meetingOfferFor } from '~/models/meetings/bookings.server';
import { redirectWithToast } from '~/utils/toast.server';
import { aiHelpForPage, aiHelpLabels, type AiHelpOutcome } from '~/models/ai/page.server';
import { integrationPanelsHtml } from '~/models/integrations/panels.server';

const notFound = () => new Response('Not Found', { status: 404 });

function readConversationId(param: string | undefined) {
  const id = parseRouteId(param);
  if (id === null) throw notFound();
  return id;
}

/** Message ids are bigserial: a bounded run of digits, or nothing. */
function readMessageId(value: string | null) {
  return value && /^\d{1,15}$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readConversationId(params.conversationId);
  const accountId = ctx.account.id;
  const found = await getConversation({ accountId, id });
  if (!found) {
    // A conversation merged into another lives on there.
    const target = await findMergeTarget({ accountId, id });
    if (target) throw redirect(`/inbox/${target}`);
    throw notFound();
  }
  const url = new URL(request.url);
  const before = readMessageId(url.searchParams.get('before'));
  const allowImages = url.searchParams.get('images') === '1';
  const cannedId = parseRouteId(url.searchParams.get('canned') ?? undefined);
  const templateId = parseRouteId(url.searchParams.get('template') ?? undefined);
  const cannedQuery = (url.searchParams.get('cq') ?? '').trim().slice(0, 100);
  const mergeQuery = (url.searchParams.get('merge_q') ?? '').trim().slice(0, 200);
  const contactId = found.conversation.contactId;
  const allRuns = url.searchParams.get('automations') === 'all';
  // Every read that needs only the conversation runs at once (ADR 110), and all but the thread, the automation runs
  // and the picks are one statement (ADR 133); the attachments wait for the thread.
  const aiAllowed = canUseFeature(ctx, 'conversation/aiHelp');
  const [thread, page, picked, searched, runs, articleLinks] = await Promise.all([
    listThread({ accountId, conversationId: id, before }),
    readConversationPage({ accountId, conversationId: id, userId: ctx.user.id, contactId, lastMessageAt: found.conversation.lastMessageAt, cannedQuery }),
    cannedId ? getCannedResponse({ accountId, id: cannedId }) : Promise.resolve(undefined),
    mergeQuery
      ? searchMergeCandidates({
          accountId,
          userId: ctx.user.id,
          q: mergeQuery,
          exceptId: id,
        })
      : Promise.resolve(null),
    listConversationRuns({ accountId, conversationId: id, limit: 30 }),
    attachableArticlesFor(request, ctx.account, url.searchParams),
  ]);
  const { others, inboxes, users, teams, tags, canned, ownLast, templates, mentionable, neighbours, time, ratings } = page;
  const [integrations, ai] = await Promise.all([
    // Most accounts connect nothing: then the panels cost no read at all.
    page.hasConnections ? integrationPanelsHtml(ctx, { email: found.contact?.email ?? null, conversationId: id }) : '',
    aiHelpLabels({ accountId, channelType: found.inbox.channelType, allowed: aiAllowed, accountServer: page.aiServer }),
  ]);
  // "Offer a meeting" fills the reply with the default meeting's booking link for this conversation (ADR 072).
  const meetingsAllowed = canUseFeature(ctx, 'chatMessenger/integratedMeetings');
  const offer = meetingsAllowed && url.searchParams.get('meeting') === 'offer' ? await meetingOfferFor({ accountId, conversationId: id, baseUrl: accountUrl(request, ctx.account.domain, '') }) : null;
  // Templates are filled for this conversation's contact ({{firstName}}...), as they would be in a campaign.
  // A template's attachments come with it (ADR 149): listed under the reply box, each checked, once it is inserted.
  const templateFiles = await listAttachmentsOfTemplates({ accountId, templateIds: templates.map((t) => t.id) });
  const filledTemplates = templates.map((t) => ({ id: t.id, name: t.name, text: renderTemplate(t.body, found.contact), hasFiles: templateFiles.has(t.id) }));
  const pickedTemplate = templateId ? filledTemplates.find((t) => t.id === templateId) : undefined;
  const attachments = await listMessageAttachments({ accountId, messageIds: thread.messages.map((m) => m.message.id) });
  let blockedImages = false;
  const messages: ThreadMessage[] = thread.messages
    .map(({ message: m, ...who }) => {
      // Stored HTML was sanitised at ingestion; remote images stay blank until the agent asks for them.
      const shown = m.html ? renderEmailHtml(m.html, { allowRemoteImages: allowImages }) : null;
      if (shown && shown.remoteImages > 0 && !allowImages) blockedImages = true;
      return {
        id: m.id,
        kind: m.kind,
        text: m.text,
        html: shown?.html ?? null,
        sender:
          m.kind === 'incoming'
            ? personName(who.contactFirstName, who.contactLastName, who.contactEmail ?? m.email?.from) || 'Customer'
            : who.botName
              ? `${who.botName} (bot)`
              : personName(who.userFirstName, who.userLastName) || 'Parley',
        createdAt: m.createdAt,
        editedAt: m.editedAt,
        deliveryStatus: m.deliveryStatus,
        deliveryError: m.deliveryError,
        deliveredVia: m.deliveredVia,
        editable: isMessageEditable(m, found.conversation),
        to: m.kind === 'outgoing' ? m.email?.to ?? [] : [],
        cc: m.email?.cc ?? [],
        bcc: m.kind === 'incoming' ? [] : m.email?.bcc ?? [],
        fromTrustedDomain: m.fromTrustedDomain,
        mine: m.senderUserId === ctx.user.id,
        // Images the message's HTML shows in place are not listed again; audio clips get a player (ADR 156).
        attachments: attachments
          .filter((a) => a.messageId === m.id && !(shown && inlineAttachmentIds(shown.html).has(a.id)))
          .map((a) => ({ id: a.id, filename: a.filename, size: a.size, kind: mediaKind(a.contentType) })),
      };
    })
    // Newest first, right under the reply box: the page is useful at once, without scrolling or script.
    .reverse();
  const { conversation: c, contact, inbox, assignee, team } = found;
  const me = publicUser(ctx);
  const candidates = searched ?? others.map((o) => ({ id: o.id, subject: o.subject, status: o.status, contact: '' }));
  return {
    me: { id: me.id, prefs: { dateFormat: me.dateFormat, timeFormat: me.timeFormat, timezone: me.timezone } },
    conversation: {
      id: c.id,
      subject: c.subject,
      status: c.status,
      priority: found.priority,
      sourceType: c.sourceType,
      inboxId: c.inboxId,
      inboxName: inbox.name,
      inboxChannel: inbox.channelType,
      assigneeId: c.assigneeId,
      assigneeName: assignee ? personName(assignee.firstName, assignee.lastName) : null,
      teamId: c.teamId,
      teamName: team?.name ?? null,
      snoozedUntil: c.snoozedUntil,
      messageCount: c.messageCount,
      createdAt: c.createdAt,
      tags: found.tags,
      sla: {
        status: c.status,
        firstResponseDueAt: c.firstResponseDueAt,
        resolveDueAt: c.resolveDueAt,
        firstRespondedAt: c.firstRespondedAt,
        responseBreachedAt: c.responseBreachedAt,
        resolveBreachedAt: c.resolveBreachedAt,
      },
    },
    // Customer-satisfaction ratings asked after a resolve (issue 15).
    ratings: ratings.map((r) => ({ id: r.id, kind: r.kind, rating: r.rating, comment: r.comment, at: r.ratedAt ?? r.requestedAt })),
    integrations,
    // Which rules acted on the conversation and why; rules that only looked and passed are behind ?automations=all.
    automations: {
      all: allRuns,
      runs: runs
        .filter((r) => allRuns || (r.state !== 'not_matched' && r.state !== 'loop_skipped' && r.state !== 'plan_skipped'))
        .map((r) => ({
          key: `${r.eventId}:${r.ruleId}`,
          ruleName: r.ruleName,
          eventType: r.eventType,
          state: RUN_STATE_LABELS[r.state],
          at: r.startedAt,
          lines: r.lines.map((l) => ({
            id: l.id,
            step: l.step,
            action: l.actionType,
            text: describeLine(l),
          })),
        })),
    },
    contact: contact
      ? { id: contact.id, name: personName(contact.firstName, contact.lastName, contact.email ?? contact.phone), email: contact.email, phone: formatPhone(contact.phone) }
      : null,
    others,
    messages,
    hasOlder: thread.hasOlder,
    before: before ?? null,
    allowImages,
    blockedImages,
    inboxes: inboxes.map((i) => ({ id: i.id, name: i.name })),
    users,
    teams,
    tags,
    canned: canned.map((r) => ({ id: r.id, name: r.name, message: r.message })),
    cannedQuery,
    reply: {
      key: `${ownLast}-${picked?.id ?? ''}-${pickedTemplate?.id ?? ''}-${articleLinks.attachedId ?? ''}-${offer ? 'meeting' : ''}`,
      text: offer ? `Book a time that suits you for ${offer.name}: ${offer.url}` : (picked?.message ?? pickedTemplate?.text ?? articleLinks.attached ?? ''),
      templateFiles: !offer && !picked && pickedTemplate ? (templateFiles.get(pickedTemplate.id) ?? []).map((f) => ({ id: f.id, filename: f.filename, size: f.size })) : [],
    },
    articleLinks,
    templates: filledTemplates,
    mentionable: mentionable.map((u) => ({ id: u.id, name: `${u.firstName} ${u.lastName}`.trim(), handle: mentionHandle(u) })),
    neighbours,
    merge: { query: mergeQuery, candidates },
    snooze: {
      until: dateToZonedInput(c.snoozedUntil ?? new Date(Date.now() + 24 * 3600_000), me.timezone),
      min: dateToZonedInput(new Date(), me.timezone),
    },
    canManage: can(ctx, 'manage_conversation'),
    // AI reply help (ADR 081): with a server the buttons stream an answer; without one they suggest.
    ai,
    meetingsAllowed,
    // Start, stop and the ticking timer are on the time page: this page's script stays within its budget.
    time: { label: `${formatHoursMinutes(time.totalSeconds)} logged${time.running ? ', your timer is running' : ''}.` },
    mediaHint: {
      images: `PNG, JPEG, GIF or WebP, up to ${MAX_INLINE_IMAGES} images of ${MAX_INLINE_IMAGE_BYTES / (1024 * 1024)} MB each. Each goes where you type [image] in the message, or at its end.`,
      audio: `WebM, Ogg, MP3, M4A or WAV, up to ${MAX_AUDIO_BYTES / (1024 * 1024)} MB.`,
    },
    uploadHint: `Up to ${MAX_REPLY_FILES} files, ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB each and ${
      MAX_MESSAGE_ATTACHMENT_BYTES / (1024 * 1024)
    } MB together.`,
  };
}

type ActionResult = {
  intent: string;
  messageId?: number;
  result: SubmissionResult<string[]>;
  mergePreview?: Awaited<ReturnType<typeof describeMergeSources>>;
  ai?: AiHelpOutcome;
};

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_conversation');
  const id = readConversationId(params.conversationId);
  const accountId = ctx.account.id;
  const who = { accountId, actorId: ctx.user.id };
  const found = await getConversation({ accountId, id });
  if (!found) throw notFound();
  const here = `/inbox/${id}`;
  const formData = await readFormWithFiles(request);
  if (typeof formData === 'string') return data<ActionResult>({ intent: 'reply', result: { status: 'error', error: { files: [formData] } } }, { status: 400 });
  const intent = String(formData.get('intent') ?? '');

  const fail = (result: SubmissionResult<string[]>, messageId?: number) => data<ActionResult>({ intent, messageId, result }, { status: 400 });
  // The form being handled, so that a refused reference is answered on it with what was typed.
  let current: { reply: (o: { formErrors: string[] }) => SubmissionResult<string[]> } | undefined;
  const track = <T extends NonNullable<typeof current>>(submission: T) => {
    current = submission;
    return submission;
  };
  /** A message of this very conversation, or a 404: ids of other conversations and accounts are not found here. */
  const messageOfHere = async (messageId: number) => {
    const message = await getMessage({ accountId, id: messageId });
    if (!message || message.conversationId !== id || message.kind === 'system') throw notFound();
    return message;
  };

  try {
    switch (intent) {
      case 'reply':
      case 'reply-resolve':
      case 'reply-pending':
      case 'note': {
        const submission = track(parseWithZod(formData, { schema: ReplySchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        const v = submission.value;
        const isNote = v.intent === 'note';
        try {
          // The files chosen, then the inserted template's files left checked (copied into the reply).
          const files = [
            ...(await filesOf(formData)),
            ...(await templateFilesForReply({ accountId, ids: formData.getAll('templateAttachments').map((v) => Number(v)).filter((n) => Number.isSafeInteger(n) && n > 0) })),
          ];
          await postMessageWithFiles({
            ...who,
            conversationId: id,
            kind: isNote ? 'note' : 'outgoing',
            text: v.text,
            email: !isNote && (v.cc.length || v.bcc.length) ? { cc: v.cc, bcc: v.bcc } : undefined,
            files,
            inlineImages: await filesOf(formData, 'inlineImages'),
            audio: await filesOf(formData, 'audio'),
          });
        } catch (err) {
          if (err instanceof MediaFileError) return fail(submission.reply({ fieldErrors: { [err.field]: [err.message] }, hideFields: ['files', 'inlineImages', 'audio'] }));
          if (err instanceof ReplyFileError) return fail(submission.reply({ fieldErrors: { files: [err.message] }, hideFields: ['files', 'inlineImages', 'audio'] }));
          throw err;
        }
        if (v.intent === 'note') return redirectWithToast(here, 'Note Added');
        const sent = found.inbox.channelType === 'email' ? 'Email Sent' : 'Message Sent';
        if (v.intent === 'reply') return redirectWithToast(here, sent);
        // Send and resolve / send and set pending (ADR 035): the reply is committed first, then the status.
        const status = STATUS_AFTER_REPLY[v.intent];
        await setConversationStatus({ ...who, ids: [id], status });
        return redirectWithToast(here, `${sent}, conversation ${status}`);
      }
      case 'edit-message': {
        const submission = track(parseWithZod(formData, { schema: EditMessageSchema }));
        if (submission.status !== 'success') return fail(submission.reply(), readMessageId(String(formData.get('messageId'))));
        await messageOfHere(submission.value.messageId);
        let edited;
        try {
          edited = await editMessage({ ...who, id: submission.value.messageId, text: submission.value.text });
        } catch (err) {
          if (err instanceof MessageNotEditableError) return fail(submission.reply({ formErrors: [err.message] }), submission.value.messageId);
          throw err;
        }
        if (!edited) return fail(submission.reply({ formErrors: ['You can only edit your own replies and notes'] }), submission.value.messageId);
        return redirectWithToast(here, { type: 'info', text: 'Message Edited' });
      }
      case 'delete-message':
      case 'delete-note': {
        const submission = track(parseWithZod(formData, { schema: MessageRefSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        const message = await messageOfHere(submission.value.messageId);
        const isNote = intent === 'delete-note';
        if (isNote && message.kind !== 'note') throw notFound();
        await deleteMessage({ ...who, id: message.id, kind: isNote ? 'note' : 'message' });
        return redirectWithToast(here, isNote ? 'Note Deleted' : 'Message Deleted');
      }
      case 'split': {
        const submission = track(parseWithZod(formData, { schema: MessageRefSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        await messageOfHere(submission.value.messageId);
        const created = await splitMessage({ ...who, messageId: submission.value.messageId });
        return redirectWithToast(`/inbox/${created.id}`, 'Conversation split');
      }
      case 'assign': {
        const submission = track(parseWithZod(formData, { schema: AssignSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        await assignConversations({ ...who, ids: [id], assigneeId: submission.value.assigneeId ?? null, teamId: submission.value.teamId ?? null });
        return redirectWithToast(here, { type: 'info', text: 'Conversation Assigned' });
      }
      case 'properties': {
        const submission = track(parseWithZod(formData, { schema: PropertiesSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        const { changed } = await updateConversationProperties({ ...who, id, values: submission.value });
        return redirectWithToast(here, { type: 'info', text: changed.length ? 'Properties Saved' : 'Nothing changed' });
      }
      case 'assign-me': {
        // The team stays as it is: taking a conversation does not move it out of its team.
        await assignConversations({ ...who, ids: [id], assigneeId: ctx.user.id, teamId: found.conversation.teamId });
        return redirectWithToast(here, { type: 'info', text: 'Conversation Assigned' });
      }
      case 'status': {
        const submission = track(parseWithZod(formData, { schema: StatusSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        await setConversationStatus({ ...who, ids: [id], status: submission.value.status });
        return redirectWithToast(here, { type: 'info', text: 'Status Updated' });
      }
      case 'priority': {
        const submission = track(parseWithZod(formData, { schema: PrioritySchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        await setConversationPriority({ ...who, ids: [id], priority: submission.value.priority });
        return redirectWithToast(here, { type: 'info', text: 'Priority Updated' });
      }
      case 'snooze': {
        const submission = track(parseWithZod(formData, { schema: SnoozeSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        const until = zonedInputToDate(submission.value.until, ctx.user.timezone);
        if (!until) return fail(submission.reply({ fieldErrors: { until: [SNOOZE_TIME_REQUIRED] } }));
        if (until.getTime() <= Date.now()) return fail(submission.reply({ fieldErrors: { until: [SNOOZE_IN_FUTURE] } }));
        await snoozeConversation({ ...who, id, until });
        return redirectWithToast(here, { type: 'info', text: 'Snooze Updated' });
      }
      case 'move': {
        const submission = track(parseWithZod(formData, { schema: MoveSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        await moveConversations({ ...who, ids: [id], inboxId: submission.value.inboxId });
        return redirectWithToast(here, 'Conversation Moved');
      }
      case 'merge':
      case 'merge-confirm': {
        const submission = track(parseWithZod(formData, { schema: MergeSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        const sourceIds = submission.value.sourceIds.filter((s) => s !== id);
        const own = await findOwnConversationIds({ accountId, ids: sourceIds });
        if (own.length !== sourceIds.length) {
          const missing = sourceIds.filter((s) => !own.includes(s));
          return fail(submission.reply({ fieldErrors: { ids: [`Conversation not found: ${missing.map((m) => `#${m}`).join(', ')}`] } }));
        }
        if (sourceIds.length === 0) return fail(submission.reply({ fieldErrors: { ids: [MERGE_NEEDS_TWO] } }));
        // First the server shows what would be merged (ADR 035); only the confirmation's own button merges.
        if (intent === 'merge') {
          const preview = await describeMergeSources({ accountId, ids: sourceIds });
          return data<ActionResult>({ intent, result: submission.reply(), mergePreview: preview });
        }
        await mergeConversations({ ...who, targetId: id, sourceIds });
        return redirectWithToast(here, 'Conversation Merged');
      }
      case 'delete': {
        await deleteConversations({ ...who, ids: [id] });
        return redirectWithToast('/inbox', 'Conversation Deleted');
      }
      case 'tag': {
        const submission = track(parseWithZod(formData, { schema: TagSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        await tagConversations({ ...who, ids: [id], tagIds: [submission.value.tagId] });
        return redirectWithToast(here, { type: 'info', text: 'Tags Updated' });
      }
      case 'untag': {
        const submission = track(parseWithZod(formData, { schema: TagSchema }));
        if (submission.status !== 'success') return fail(submission.reply());
        if (!(await untagConversation({ ...who, id, tagId: submission.value.tagId }))) throw notFound();
        return redirectWithToast(here, { type: 'info', text: 'Tags Updated' });
      }
      case 'ai-write':
      case 'ai-rewrite': {
        // Never sends: the answer (or suggestions) comes back into the reply box for the agent to review.
        const out = await aiHelpForPage({ accountId, userId: ctx.user.id, conversationId: id, formData, siteUrl: accountUrl(request, ctx.account.domain, '') });
        if (!out) throw notFound();
        return data<ActionResult>({ intent, result: out.result, ai: out.ai }, { status: out.status });
      }
      default:
        throw new Response('Unknown intent', { status: 400 });
    }
  } catch (err) {
    // A user, team, inbox, tag or conversation that is not the account's: the form says so, nothing changed.
    if (err instanceof InvalidReferenceError) return fail(current?.reply({ formErrors: [err.message] }) ?? { status: 'error', error: { '': [err.message] } });
    throw err;
  }
}

export const handle = {
  breadcrumb: (d: { conversation: { id: number; subject: string } } | undefined) =>
    d ? `#${d.conversation.id} ${truncate(d.conversation.subject || '(no subject)', 40)}` : null,
};

export default function ConversationPage() {
  const d = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const resultFor = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined);
  const { conversation: c, me } = d;
  const prefs = me.prefs;

  useLiveRevalidation(
    useCallback(
      (m: { type: string; conversationId?: unknown }) => m.conversationId === c.id && (m.type.startsWith('message.') || m.type.startsWith('conversation.')),
      [c.id],
    ),
  );
  const viewers = usePresence(c.id, me.id);
  useConversationShortcuts(d.neighbours);

  return (
    <div>
      <header className="conv-head">
        <Link to="/inbox">← Inbox</Link>
        <h1>
          #{c.id} {c.subject || '(no subject)'}
        </h1>
        <StatusPill status={c.status} />
        <PriorityPill priority={c.priority} />
        <span className="muted">
          {c.inboxName} · {c.sourceType.replaceAll('_', ' ')}
          {c.assigneeName ? ` · ${c.assigneeName}` : ''}
          {c.teamName ? ` · ${c.teamName}` : ''}
          {c.status === 'snoozed' && c.snoozedUntil ? ` · snoozed until ${formatDateTime(c.snoozedUntil, prefs)}` : ''}
        </span>
        <span className="spacer" />
        {d.canManage ? <QuickActions status={c.status} assignedToMe={c.assigneeId === me.id} /> : null}
        <nav className="row" aria-label="Other conversations">
          {d.neighbours.previousId ? <Link to={`/inbox/${d.neighbours.previousId}`}>Previous</Link> : null}
          {d.neighbours.nextId ? <Link to={`/inbox/${d.neighbours.nextId}`}>Next</Link> : null}
        </nav>
        <ShortcutsHelp />
        {viewers.length ? (
          <span className="presence" data-testid="presence">
            Also viewing: {viewers.map((v) => v.name).join(', ')}
          </span>
        ) : null}
      </header>
      {actionData?.mergePreview ? <MergeConfirm targetId={c.id} preview={actionData.mergePreview} /> : null}
      <div className="conv-grid">
        <section aria-label="Conversation">
          {d.canManage ? (
            <ReplyBox
              key={actionData?.ai ? `ai-${actionData.ai.nonce}` : d.reply.key}
              d={d}
              ai={actionData?.ai}
              lastResult={actionData?.ai ? undefined : [...REPLY_INTENTS, ...AI_INTENTS].map(resultFor).find(Boolean)}
            />
          ) : null}
          {c.inboxChannel === 'web' ? <WidgetTyping conversationId={c.id} /> : null}
          {d.before ? (
            <p>
              <Link to={`/inbox/${c.id}${d.allowImages ? '?images=1' : ''}`}>Back to the newest messages</Link>
            </p>
          ) : null}
          {d.blockedImages ? (
            <p className="muted">
              Remote images are hidden to protect your privacy.{' '}
              <Link to={`?${new URLSearchParams({ ...(d.before ? { before: String(d.before) } : {}), images: '1' })}`}>Show images</Link>
            </p>
          ) : null}
          <ol className="thread" data-testid="thread" reversed>
            {d.messages.map((m) => (
              <ThreadItem
                key={m.id}
                message={m}
                prefs={prefs}
                canManage={d.canManage}
                canSplit={d.canManage && c.messageCount > 1 && (m.kind === 'incoming' || m.kind === 'outgoing')}
                editResult={actionData?.intent === 'edit-message' && actionData.messageId === m.id ? actionData.result : undefined}
              />
            ))}
          </ol>
          {d.hasOlder ? (
            <p>
              <Link
                to={`?${new URLSearchParams({ before: String(d.messages.at(-1)?.id ?? ''), ...(d.allowImages ? { images: '1' } : {}) })}`}
                data-testid="older"
              >
                Show older messages
              </Link>
            </p>
          ) : null}
        </section>

        <aside aria-label="Details">
          <section className="side-card" data-testid="contact-panel">
            <h2>Contact</h2>
            {d.contact ? (
              <>
                <p>
                  <strong>{d.contact.name}</strong>
                  {d.contact.email ? (
                    <>
                      <br />
                      <a href={`mailto:${d.contact.email}`}>{d.contact.email}</a>
                    </>
                  ) : null}
                  {d.contact.phone ? (
                    <>
                      <br />
                      {d.contact.phone}
                    </>
                  ) : null}
                </p>
                <h2>Other conversations</h2>
                {d.others.length === 0 ? <p className="muted">None</p> : null}
                <ul>
                  {d.others.map((o) => (
                    <li key={o.id}>
                      <Link to={`/inbox/${o.id}`}>
                        #{o.id} {o.subject || '(no subject)'}
                      </Link>{' '}
                      <StatusPill status={o.status} />
                    </li>
                  ))}
                </ul>
              </>
            ) : (
              <p className="muted">No contact</p>
            )}
          </section>

          {/* Server-made HTML of the integrations' panels (ADR 078): no client code for them. */}
          {d.integrations ? <div data-testid="integration-panels" dangerouslySetInnerHTML={{ __html: d.integrations }} /> : null}

          {c.sla.firstResponseDueAt || c.sla.resolveDueAt ? (
            <section className="side-card" data-testid="sla-panel">
              <h2>SLA</h2>
              <p>
                <SlaPill sla={c.sla} format={(d) => formatDateTime(d, prefs)} />
              </p>
              <dl className="sla-times">
                <dt>First response due</dt>
                <dd>
                  {c.sla.firstResponseDueAt ? formatDateTime(c.sla.firstResponseDueAt, prefs) : '—'}
                  {c.sla.firstRespondedAt ? ` · answered ${formatDateTime(c.sla.firstRespondedAt, prefs)}` : ''}
                  {c.sla.responseBreachedAt ? ' · breached' : ''}
                </dd>
                <dt>Resolution due</dt>
                <dd>
                  {c.sla.resolveDueAt ? formatDateTime(c.sla.resolveDueAt, prefs) : '—'}
                  {c.sla.resolveBreachedAt ? ' · breached' : ''}
                </dd>
              </dl>
            </section>
          ) : null}

          <section className="side-card" data-testid="time-panel">
            <h2>Time</h2>
            <p>
              <span data-testid="conversation-time-total">{d.time.label}</span> <Link to={`/inbox/${c.id}/time`}>Log time and see entries</Link>
            </p>
            {d.meetingsAllowed ? (
              <Link to="?meeting=offer" preventScrollReset data-testid="offer-meeting">
                Offer a meeting
              </Link>
            ) : null}
          </section>
          {d.ratings.length ? (
            <section className="side-card" data-testid="csat-panel">
              <h2>Satisfaction</h2>
              <ul className="runs">
                {d.ratings.map((r) => (
                  <li key={r.id} data-testid="csat-rating">
                    {r.rating === null ? (
                      <span className="muted">Asked by {r.kind === 'chat' ? 'chat' : 'email'}, not rated yet</span>
                    ) : (
                      <>
                        <strong>{`${r.rating} / 5`}</strong> <span className="muted">· {formatDateTime(r.at, prefs)}</span>
                        {r.comment ? <p>{r.comment}</p> : null}
                      </>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          <section className="side-card" data-testid="automations-panel">
            <h2>Automations</h2>
            {d.automations.runs.length === 0 ? (
              <p className="muted">{d.automations.all ? 'No rule has looked at this conversation.' : 'No rule has acted on this conversation.'}</p>
            ) : null}
            <ul className="runs">
              {d.automations.runs.map((r) => (
                <li key={r.key} data-testid="automation-run">
                  <strong>{r.ruleName}</strong> <span className="pill">{r.state}</span>
                  <br />
                  <span className="muted">
                    on {r.eventType.replaceAll('_', ' ')} · {formatDateTime(r.at, prefs)}
                  </span>
                  <ul>
                    {r.lines.map((l) => (
                      <li key={l.id}>
                        {l.action ? `${l.action.replaceAll('_', ' ')}: ` : ''}
                        {l.step.replace('action_', '').replaceAll('_', ' ')}
                        {l.text ? ` — ${l.text}` : ''}
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
            <Link to={d.automations.all ? '?' : '?automations=all'} preventScrollReset>
              {d.automations.all ? 'Only rules that acted' : 'Show every rule that looked'}
            </Link>
          </section>

          {d.canManage ? (
            <section className="side-card ops" data-testid="operations">
              <h2>Properties</h2>
              <PropertiesForm
                // A change made elsewhere (live) renews the panel, so saving it never puts back what was there before.
                key={[c.status, c.assigneeId, c.teamId, c.priority, c.inboxId, c.tags.map((t) => t.id).join('.')].join('|')}
                conversation={c}
                users={d.users}
                teams={d.teams}
                inboxes={d.inboxes}
                tags={d.tags}
                lastResult={resultFor('properties')}
              />
              <h2>Snooze</h2>
              <SnoozeForm until={d.snooze.until} min={d.snooze.min} timezone={prefs.timezone} lastResult={resultFor('snooze')} />
              <h2>Merge</h2>
              <MergeForm candidates={d.merge.candidates} query={d.merge.query} lastResult={resultFor('merge')} />
              <h2>Delete</h2>
              <DeleteConfirm id={`conversation-${c.id}`} intent="delete" label="Delete conversation" />
            </section>
          ) : (
            <>
              <section className="side-card">
                <h2>Tags</h2>
                <TagsForm tags={d.tags} current={c.tags} canManage={false} lastResult={undefined} />
              </section>
              <p className="muted side-card">Your role can read this conversation but not change it.</p>
            </>
          )}
        </aside>
      </div>
    </div>
  );
}

/**
 * Reply (an email to the contact, with cc and bcc) or a private note, from one box; canned responses fill it
 * (a link that reloads with `?canned=<id>`, or, with JavaScript, inserts at the cursor without a reload).
 */
function ReplyBox({
  d,
  ai,
  lastResult,
}: {
  d: ReturnType<typeof useLoaderData<typeof loader>>;
  ai: AiHelpOutcome | undefined;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm<ReplyFields>({
    id: 'reply',
    lastResult,
    defaultValue: ai
      ? { text: ai.text, cc: ai.cc, bcc: ai.bcc, aiInstruction: ai.instruction, aiStyle: ai.style, aiLanguage: ai.language }
      : { text: d.reply.text, cc: '', bcc: '', aiInstruction: '', aiStyle: 'shorter', aiLanguage: '' },
    shouldValidate: 'onSubmit',
  });
  const textarea = useRef<HTMLTextAreaElement>(null);
  const insert = (text: string) => {
    const el = textarea.current;
    if (!el) return false;
    el.focus();
    el.setRangeText(text, el.selectionStart, el.selectionEnd, 'end');
    el.dispatchEvent(new Event('input', { bubbles: true }));
    return true;
  };
  const { key: textKey, ...textProps } = getTextareaProps(fields.text, { ariaAttributes: true });
  const { key: ccKey, ...ccProps } = getInputProps(fields.cc, { type: 'text', ariaAttributes: true });
  const { key: bccKey, ...bccProps } = getInputProps(fields.bcc, { type: 'text', ariaAttributes: true });
  const fileErrors = lastResult?.error?.files;
  return (
    <section className="side-card reply" aria-label="Reply">
      {ai?.kind === 'suggestions' ? <AiSuggestions d={d} ai={ai} /> : null}
      <details className="canned" open={Boolean(d.cannedQuery) || undefined}>
        <summary>Insert a canned response</summary>
        <CannedList d={d} insert={insert} />
      </details>
      <details className="canned">
        <summary>Insert an email template</summary>
        <TemplateList
          templates={d.templates}
          keep={{ ...(d.before ? { before: String(d.before) } : {}), ...(d.allowImages ? { images: '1' } : {}) }}
          insert={insert}
        />
      </details>
      <details className="canned" open={Boolean(d.articleLinks.query) || undefined}>
        <summary>Insert a link to an article</summary>
        <ArticleLinks
          query={d.articleLinks.query}
          found={d.articleLinks.found}
          keep={{ ...(d.before ? { before: String(d.before) } : {}), ...(d.allowImages ? { images: '1' } : {}) }}
          insert={insert}
        />
      </details>
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)}>
        <div className="field">
          <label htmlFor={fields.text.id}>Message</label>
          <textarea key={textKey} ref={textarea} {...textProps} rows={5} placeholder="Write a reply, or a private note for your team (@name mentions a teammate)" />
          <MentionSuggestions textarea={textarea} users={d.mentionable} />
          <ErrorList id={fields.text.errorId} errors={fields.text.errors} />
        </div>
        <AiHelp d={d} ai={ai} fields={fields} textarea={textarea} />
        {d.conversation.inboxChannel === 'email' ? (
          <div className="row">
            <div className="field">
              <label htmlFor={fields.cc.id}>Cc</label>
              <input key={ccKey} {...ccProps} placeholder="a@example.com, b@example.com" />
              <ErrorList id={fields.cc.errorId} errors={fields.cc.errors} />
            </div>
            <div className="field">
              <label htmlFor={fields.bcc.id}>Bcc</label>
              <input key={bccKey} {...bccProps} />
              <ErrorList id={fields.bcc.errorId} errors={fields.bcc.errors} />
            </div>
          </div>
        ) : null}
        {d.reply.templateFiles.length ? (
          <fieldset className="field" data-testid="template-files">
            <legend>The template’s attachments</legend>
            {d.reply.templateFiles.map((f) => (
              <label key={f.id} className="row">
                <input type="checkbox" name="templateAttachments" value={f.id} defaultChecked /> {f.filename} <span className="muted">({formatSize(f.size)})</span>
              </label>
            ))}
          </fieldset>
        ) : null}
        <div className="field">
          <label htmlFor="reply-files">Attachments</label>
          <input id="reply-files" type="file" name="files" multiple aria-invalid={fileErrors ? true : undefined} aria-describedby="reply-files-hint" />
          <small id="reply-files-hint" className="muted">
            {d.uploadHint}
          </small>
          <ErrorList errors={fileErrors} />
        </div>
        <ReplyMedia textarea={textarea} hints={d.mediaHint} errors={{ images: lastResult?.error?.inlineImages ?? undefined, audio: lastResult?.error?.audio ?? undefined }} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="row">
          <button className="btn btn-primary" name="intent" value="reply">
            Send reply
          </button>
          <button className="btn" name="intent" value="reply-resolve">
            Send and resolve
          </button>
          <button className="btn" name="intent" value="reply-pending">
            Send and set pending
          </button>
          <button className="btn" name="intent" value="note">
            Add note
          </button>
        </div>
      </Form>
    </section>
  );
}

const AI_INTENTS = ['ai-write', 'ai-rewrite'] as const;
type ReplyFields = { text: string; cc: string; bcc: string; aiInstruction: string; aiStyle: string; aiLanguage: string };

/**
 * AI reply help (ADR 081) inside the reply form, so that the draft, cc and bcc travel with it. "Write" comes first in
 * the form: Enter in a field asks for a suggestion, never sends. With a server and JavaScript the answer streams
 * into the box (the page's script stays small: a fetch and a reader); otherwise the page answers in full.
 */
function AiHelp({ d, ai, fields, textarea }: { d: ReturnType<typeof useLoaderData<typeof loader>>; ai: AiHelpOutcome | undefined; fields: ReturnType<typeof useForm<ReplyFields>>[1]; textarea: React.RefObject<HTMLTextAreaElement> }) {
  const [note, setNote] = useState(ai?.notice ?? d.ai.idle);
  const stream = (e: React.MouseEvent<HTMLButtonElement>) => {
    const box = textarea.current;
    const button = e.currentTarget;
    if (!d.ai.configured || !box || typeof TextDecoderStream === 'undefined') return;
    e.preventDefault();
    setNote('…');
    import('~/components/inbox/ai-stream').then((m) => m.streamAiAnswer(d.conversation.id, button, box)).then(setNote, setNote);
  };
  return (
    <fieldset data-testid="ai-help">
      <legend>{d.ai.legend}</legend>
      <div className="row">
        <Field label={d.ai.instruction} field={fields.aiInstruction} maxLength={500} />
        <button className="btn" name="intent" value="ai-write" onClick={stream}>
          {d.ai.write}
        </button>
      </div>
      {d.ai.configured ? (
        <div className="row">
          <SelectField label="Rewrite" field={fields.aiStyle} options={d.ai.styles} />
          <Field label="Language (to translate)" field={fields.aiLanguage} maxLength={40} />
          <button className="btn" name="intent" value="ai-rewrite" onClick={stream}>
            Rewrite reply
          </button>
        </div>
      ) : null}
      <p className="muted" role="status" data-testid="ai-status">
        {note}
      </p>
    </fieldset>
  );
}

/** Without AI (or when it failed): the best-matching canned responses and articles, by full-text search. */
function AiSuggestions({ d, ai }: { d: ReturnType<typeof useLoaderData<typeof loader>>; ai: AiHelpOutcome }) {
  const q = (k: string, id: number) => `?${new URLSearchParams({ ...(d.before ? { before: String(d.before) } : {}), [k]: String(id) })}`;
  return (
    <div data-testid="ai-suggestions">
      <h2 className="h4">{ai.heading}</h2>
      <ul>
        {ai.canned.map((r) => (
          <li key={r.id}>
            <strong>{r.name}</strong>: {r.message} <Link to={q('canned', r.id)}>Use {r.name}</Link>
          </li>
        ))}
        {ai.articles.map((a) => (
          <li key={a.id}>
            <a href={a.url}>{a.title}</a>: {a.snippet} <Link to={q('attach', a.id)}>Insert link</Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Resolve and Assign to me at the top: one click (or the `e` and `a` keys), each a plain form. */
function QuickActions({ status, assignedToMe }: { status: string; assignedToMe: boolean }) {
  return (
    <div className="row">
      {status !== 'resolved' ? (
        <Form method="post">
          <input type="hidden" name="status" value="resolved" />
          <button className="btn" name="intent" value="status" data-shortcut="resolve">
            Resolve
          </button>
        </Form>
      ) : null}
      {assignedToMe ? null : (
        <Form method="post">
          <button className="btn" name="intent" value="assign-me" data-shortcut="assign-me">
            Assign to me
          </button>
        </Form>
      )}
    </div>
  );
}

function CannedList({ d, insert }: { d: ReturnType<typeof useLoaderData<typeof loader>>; insert: (text: string) => boolean }) {
  const keep = { ...(d.before ? { before: String(d.before) } : {}), ...(d.allowImages ? { images: '1' } : {}) };
  return (
    <div data-testid="canned-responses">
      <Form method="get" className="row">
        {Object.entries(keep).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <input type="search" name="cq" defaultValue={d.cannedQuery} aria-label="Search canned responses" placeholder="Search canned responses" />
        <button className="btn">Search</button>
      </Form>
      {d.canned.length === 0 ? (
        <p className="muted">
          {d.cannedQuery ? 'No canned response matches.' : 'No canned responses yet.'} <Link to="/settings/canned-responses">Manage</Link>
        </p>
      ) : null}
      {d.canned.map((r) => (
        <Link
          key={r.id}
          to={`?${new URLSearchParams({ ...keep, canned: String(r.id) })}`}
          title={r.message}
          preventScrollReset
          onClick={(e) => {
            if (insert(r.message)) e.preventDefault();
          }}
        >
          {r.name}
        </Link>
      ))}
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [
  { title: pageTitle(d ? `#${d.conversation.id} ${d.conversation.subject}` : 'Conversation', 'Inbox') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
