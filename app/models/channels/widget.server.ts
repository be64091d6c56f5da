import crypto from 'node:crypto';
import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { SourceType } from '../../../db/schema/inbox';
import { getInboxBusinessHours } from '../automation/business-hours.server';
import { isOpenAt, type BusinessHoursRules } from '../automation/business-time';
import { findOrCreateContact } from '../contacts/contacts.server';
import { recordPageView } from '../crm/page-views.server';
import { openConversation } from '../inbox/conversations.server';
import { addMessage } from '../inbox/messages.server';
import { detectContentType, linkAttachments, saveAttachment } from '../inbox/attachments.server';
import { mediaKind } from '../inbox/inline-media.server';
import { removeStoredFiles } from '../storage/files.server';
import { getConfig } from '../../utils/env.server';
import { publishToAccount } from '../../utils/live.server';
import { singleton } from '../../utils/singleton.server';
import { deliverMessage, DeliveryRefused, loadOutgoing, markDelivery, registerChannelDeliverer, type DeliveryResult, type OutgoingMessage } from './delivery.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { articlePath } from '../knowledge-base/constants';
import { MARK_END, MARK_START, searchPublicArticles } from '../knowledge-base/public.server';
import { recordSearchConversion } from '../analytics/search-conversions.server';
import { BRAND_COLOURS, readMessengerSettings, type MessengerSettings } from './messenger-settings';

/**
 * The messenger widget's and the chat page's side of a web inbox: visitors, their signed tokens, their one
 * conversation, page views and the offline ticket. Every read is scoped by the account named in a token that only
 * this server can sign, and a visitor reads only the conversation recorded on its own row.
 */

export type Inbox = typeof schema.inboxes.$inferSelect;
export type WidgetVisitor = typeof schema.widgetVisitors.$inferSelect;

/** An agent counts as online when one of their sockets is open and was seen this recently. */
export const PRESENCE_FRESH_SECONDS = 90;
export const WIDGET_TEXT_MAX = 5000;
/** The contact form's limits (readContactFormPost streams uploads within them). */
export const WIDGET_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const WIDGET_ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain', 'text/csv'];
/** Message posts per visitor per minute (the route enforces it). */
export const WIDGET_POST_LIMIT = { limit: 20, windowMs: 60_000 };

export class WidgetInputError extends Error {}

// ---------------------------------------------------------------------------------------------------------
// Tokens

const tokenKey = () => singleton('widget-token-key', () => crypto.createHmac('sha256', getConfig().sessionSecret).update('parley:widget-visitor').digest());

export type VisitorClaims = { accountId: number; inboxId: number; visitorId: string };

/** `base64url(account.inbox.visitor).signature`: names a visitor row; forging one needs SESSION_SECRET. */
export function signVisitorToken(claims: VisitorClaims) {
  const body = Buffer.from(`${claims.accountId}.${claims.inboxId}.${claims.visitorId}`).toString('base64url');
  const sig = crypto.createHmac('sha256', tokenKey()).update(body).digest('base64url');
  return `${body}.${sig}`;
}

export function readVisitorToken(token: string | null | undefined): VisitorClaims | null {
  if (!token || token.length > 300) return null;
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) return null;
  const expected = crypto.createHmac('sha256', tokenKey()).update(body).digest('base64url');
  if (!safeEqual(sig, expected)) return null;
  const [a, i, v] = Buffer.from(body, 'base64url').toString('utf8').split('.');
  const accountId = Number(a);
  const inboxId = Number(i);
  if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(inboxId) || !v || !/^[A-Za-z0-9_-]{10,40}$/.test(v)) return null;
  return { accountId, inboxId, visitorId: v };
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Identity verification: the site signs its user id with the inbox secret (HMAC-SHA256, hex), as Intercom does. */
export function userHashFor(secret: string, userId: string) {
  return crypto.createHmac('sha256', secret).update(userId).digest('hex');
}

export function isUserHashValid(secret: string | null, userId: string, hash: string | null | undefined) {
  if (!secret || !hash) return false;
  return safeEqual(hash.toLowerCase(), userHashFor(secret, userId));
}

// ---------------------------------------------------------------------------------------------------------
// Inboxes as the public sees them

/** A web inbox by id: the one lookup not scoped by a session, since the snippet names only the inbox. */
export async function getPublicWebInbox(inboxId: number) {
  if (!Number.isSafeInteger(inboxId) || inboxId <= 0) return undefined;
  const [inbox] = await getDb()
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.id, inboxId), eq(schema.inboxes.channelType, 'web')));
  return inbox;
}

/** The account's web inbox whose chat page has this code (when the page is switched on). */
export async function getInboxByChatPageCode(opts: { accountId: number; code: string }) {
  if (!/^[A-Za-z0-9_-]{6,40}$/.test(opts.code)) return undefined;
  const [inbox] = await getDb()
    .select()
    .from(schema.inboxes)
    .where(
      and(
        eq(schema.inboxes.accountId, opts.accountId),
        eq(schema.inboxes.channelType, 'web'),
        sql`${schema.inboxes.settings} -> 'chatPage' ->> 'code' = ${opts.code}`,
      ),
    );
  if (!inbox) return undefined;
  const settings = readMessengerSettings(inbox.settings);
  return settings.chatPage.enabled ? { inbox, settings } : undefined;
}

/** Online = inside the inbox's business hours (if it has any) and at least one agent of the account connected. */
export async function isInboxOnline(opts: { accountId: number; inbox: Inbox; now?: Date }) {
  const now = opts.now ?? new Date();
  const hours: BusinessHoursRules | null = await getInboxBusinessHours({ accountId: opts.accountId, inboxId: opts.inbox.id });
  if (hours && !isOpenAt(hours, now)) return false;
  const [agent] = await getDb()
    .select({ userId: schema.agentPresence.userId })
    .from(schema.agentPresence)
    .where(
      and(
        eq(schema.agentPresence.accountId, opts.accountId),
        gt(schema.agentPresence.connections, 0),
        gt(schema.agentPresence.lastSeenAt, new Date(now.getTime() - PRESENCE_FRESH_SECONDS * 1000)),
      ),
    )
    .limit(1);
  return Boolean(agent);
}

/** What the widget needs to draw itself: public settings only (never the secret, never other inboxes). */
export function publicWidgetConfig(inbox: Inbox, settings: MessengerSettings) {
  const { appearance, configure, advanced, offline } = settings;
  return {
    inboxId: inbox.id,
    color: BRAND_COLOURS[appearance.brandColor],
    position: appearance.position,
    font: appearance.font,
    fontSize: Number(appearance.fontSize),
    greeting: appearance.greeting,
    teamName: configure.teamName,
    welcomeMessage: configure.welcomeMessage,
    showLauncher: configure.showLauncher,
    trackPageViews: configure.trackPageViews,
    attachments: advanced.attachments,
    offline: {
      message: offline.offlineMessage,
      heading: offline.ticketHeading,
      submitButton: offline.submitButton,
      submitMessage: offline.submitMessage,
      fields: {
        name: offline.isName,
        email: offline.isEmail,
        phone: offline.isNumber,
        subject: offline.isSubject,
        message: offline.isMessage,
        attachment: offline.isAttachment,
        captcha: offline.isCaptcha,
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Help-centre search (issue 13): before a chat starts, the widget searches the knowledge base chosen in
// Messenger → Configure, while that help centre is public.

/** The help centre an inbox's widget searches, or null when none is chosen or it is not public. */
export async function widgetHelpCentre(inbox: Inbox, settings: MessengerSettings = readMessengerSettings(inbox.settings)) {
  const id = settings.configure.helpCentreId;
  if (!id) return null;
  const kb = schema.knowledgeBases;
  const [row] = await getDb()
    .select({ id: kb.id, slug: kb.slug, language: kb.language, domain: schema.accounts.domain })
    .from(kb)
    .innerJoin(schema.accounts, eq(schema.accounts.id, kb.accountId))
    .where(and(eq(kb.accountId, inbox.accountId), eq(kb.id, id), eq(kb.docsVisible, true)));
  return row ?? null;
}

const MARKS = new RegExp(`[${MARK_START}${MARK_END}]`, 'g');

/**
 * The widget's search: the top five published articles with plain-text snippets and the help-centre path of
 * each (the search is recorded like the help centre's own, so clicks count for the reports; `replaces` names the
 * search this one continues as the visitor types, so a typed question is one search). Null when the
 * inbox offers no help centre.
 */
export async function searchWidgetHelp(opts: { inbox: Inbox; q: string; replaces?: number | null; visitorId?: string | null }) {
  const help = await widgetHelpCentre(opts.inbox);
  if (!help) return null;
  const found = await searchPublicArticles({ accountId: opts.inbox.accountId, knowledgeBaseId: help.id, q: opts.q, language: help.language, limit: 5, replaces: opts.replaces, visitorId: opts.visitorId });
  return {
    domain: help.domain,
    searchId: found.searchId,
    results: found.hits.map((h) => ({
      title: h.title,
      text: h.snippet.replace(MARKS, ''),
      path: articlePath(help.slug, h) + (found.searchId ? `?s=${found.searchId}` : ''),
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Visitors

export type SiteUser = { id: string; hash?: string | null; name?: string | null; email?: string | null };

/**
 * Starts or resumes a visitor of a web inbox. A valid token of the same inbox resumes its row (the conversation
 * survives page changes); anything else starts a new visitor. A site user whose hash checks out is matched to
 * (or becomes) a contact at once; a bad hash is ignored, and refused when the inbox requires verification.
 */
export async function startVisitor(opts: { inbox: Inbox; token?: string | null; user?: SiteUser | null }) {
  const { inbox } = opts;
  const settings = readMessengerSettings(inbox.settings);
  const claims = readVisitorToken(opts.token);
  const db = getDb();
  let visitor: WidgetVisitor | undefined;
  if (claims && claims.inboxId === inbox.id && claims.accountId === inbox.accountId) {
    [visitor] = await db
      .update(schema.widgetVisitors)
      .set({ lastSeenAt: new Date() })
      .where(
        and(eq(schema.widgetVisitors.accountId, inbox.accountId), eq(schema.widgetVisitors.id, claims.visitorId), eq(schema.widgetVisitors.inboxId, inbox.id)),
      )
      .returning();
  }
  const userId = opts.user?.id?.trim().slice(0, 200) || null;
  const verified = userId ? isUserHashValid(inbox.secret, userId, opts.user?.hash) : false;
  if (userId && !verified && settings.advanced.requireIdentity) throw new WidgetInputError('Identity verification failed');
  // A browser that changes users (log out, log in as someone else) starts afresh rather than reading the other's chat.
  if (visitor && verified && visitor.externalUserId && visitor.externalUserId !== userId) visitor = undefined;
  if (!visitor) {
    [visitor] = await db
      .insert(schema.widgetVisitors)
      .values({ id: crypto.randomBytes(16).toString('base64url'), accountId: inbox.accountId, inboxId: inbox.id })
      .returning();
  }
  if (verified && userId && visitor.externalUserId !== userId) {
    visitor = await db.transaction(async (tx) => {
      const { contact } = await findOrCreateContact(tx, {
        accountId: inbox.accountId,
        identity: { channel: 'site_user', externalId: userId },
        name: opts.user?.name?.slice(0, 100) || null,
        email: validEmail(opts.user?.email),
        source: 'web',
      });
      // A known user's browser continues their latest chat in this inbox.
      const [latest] = await tx
        .select({ id: schema.conversations.id })
        .from(schema.conversations)
        .where(
          and(
            eq(schema.conversations.accountId, inbox.accountId),
            eq(schema.conversations.inboxId, inbox.id),
            eq(schema.conversations.contactId, contact.id),
            isNull(schema.conversations.deletedAt),
          ),
        )
        .orderBy(desc(schema.conversations.id))
        .limit(1);
      const [row] = await tx
        .update(schema.widgetVisitors)
        .set({ externalUserId: userId, contactId: contact.id, conversationId: visitor!.conversationId ?? latest?.id ?? null })
        .where(and(eq(schema.widgetVisitors.accountId, inbox.accountId), eq(schema.widgetVisitors.id, visitor!.id)))
        .returning();
      return row;
    });
  }
  if (visitor.conversationId) await markChatRepliesSeen({ visitor });
  const token = signVisitorToken({ accountId: inbox.accountId, inboxId: inbox.id, visitorId: visitor.id });
  return { visitor, token, settings, verified };
}

function validEmail(value: string | null | undefined) {
  const v = value?.trim().toLowerCase();
  return v && v.length <= 200 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? v : null;
}

/** The visitor and inbox a token names, or undefined (unknown, forged, or the inbox is gone). */
export async function visitorFromToken(token: string | null | undefined) {
  const claims = readVisitorToken(token);
  if (!claims) return undefined;
  const [row] = await getDb()
    .select({ visitor: schema.widgetVisitors, inbox: schema.inboxes })
    .from(schema.widgetVisitors)
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, schema.widgetVisitors.inboxId), eq(schema.inboxes.accountId, schema.widgetVisitors.accountId)))
    .where(
      and(
        eq(schema.widgetVisitors.accountId, claims.accountId),
        eq(schema.widgetVisitors.id, claims.visitorId),
        eq(schema.widgetVisitors.inboxId, claims.inboxId),
        eq(schema.inboxes.channelType, 'web'),
      ),
    );
  return row;
}

/** kind: an image shows in the bubble, an audio clip plays there, any other file is a link (ADR 156). */
export type VisitorFileLink = { name: string; url: string; kind: 'image' | 'audio' | 'file' };
export type VisitorMessage = {
  id: number;
  from: 'visitor' | 'agent';
  text: string;
  at: string;
  author: string | null;
  edited: boolean;
  attachments: VisitorFileLink[];
  /** A chatbot's question waiting for its answer (ADR 075): the visitor may press one of these. */
  buttons?: string[];
};

/** How long a visitor's file link works; the thread hands out fresh ones each time it is read. */
export const FILE_LINK_SECONDS = 60 * 60;

/**
 * A capability link to one attachment of the visitor's conversation: the visitor's own reads are the only place
 * that hands it out (they are token-checked), so the link itself carries no session; it expires after an hour.
 */
export function signFileLink(opts: { accountId: number; attachmentId: number; now?: number }) {
  const exp = Math.floor((opts.now ?? Date.now()) / 1000) + FILE_LINK_SECONDS;
  const body = Buffer.from(`${opts.accountId}.${opts.attachmentId}.${exp}`).toString('base64url');
  const sig = crypto.createHmac('sha256', tokenKey()).update(`file:${body}`).digest('base64url');
  return `/public/widget/file/${body}.${sig}`;
}

/** The account and attachment a file link names, or null when it is forged, malformed or expired. */
export function readFileLink(token: string | undefined, now = Date.now()): { accountId: number; attachmentId: number } | null {
  const [body, sig, extra] = (token ?? '').split('.');
  if (!body || !sig || extra !== undefined) return null;
  // The signature's text is compared, as for visitor tokens: decoding first would accept other spellings of it.
  if (!safeEqual(sig, crypto.createHmac('sha256', tokenKey()).update(`file:${body}`).digest('base64url'))) return null;
  const [accountId, attachmentId, exp] = Buffer.from(body, 'base64url').toString('utf8').split('.').map(Number);
  if (![accountId, attachmentId, exp].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  if (exp * 1000 < now) return null;
  return { accountId, attachmentId };
}

/**
 * The visitor's conversation, as the visitor may see it: only what was said to and by them (no notes, no
 * system lines), oldest first, after a given id. Scoped by the account and the visitor's own conversation id.
 */
export async function listVisitorMessages(opts: { visitor: WidgetVisitor; after?: number; limit?: number }): Promise<VisitorMessage[]> {
  if (!opts.visitor.conversationId) return [];
  const m = schema.messages;
  const rows = await getDb()
    .select({ id: m.id, kind: m.kind, text: m.text, createdAt: m.createdAt, editedAt: m.editedAt, firstName: schema.users.firstName, botName: schema.chatbots.name })
    .from(m)
    .innerJoin(schema.conversations, and(eq(schema.conversations.id, m.conversationId), eq(schema.conversations.accountId, opts.visitor.accountId)))
    .leftJoin(schema.users, eq(schema.users.id, m.senderUserId))
    .leftJoin(schema.chatbots, and(eq(schema.chatbots.id, m.botId), eq(schema.chatbots.accountId, opts.visitor.accountId)))
    .where(
      and(
        eq(m.accountId, opts.visitor.accountId),
        eq(m.conversationId, opts.visitor.conversationId),
        isNull(m.deletedAt),
        isNull(schema.conversations.deletedAt),
        inArray(m.kind, ['incoming', 'outgoing']),
        opts.after ? gt(m.id, opts.after) : undefined,
      ),
    )
    .orderBy(desc(m.id))
    .limit(opts.limit ?? 100);
  const ids = rows.map((r) => r.id);
  const choices = rows.some((r) => r.botName !== null) ? await pendingChoices({ accountId: opts.visitor.accountId, conversationId: opts.visitor.conversationId }) : null;
  const files = ids.length
    ? await getDb()
        .select({
          id: schema.attachments.id,
          messageId: schema.attachments.messageId,
          filename: schema.attachments.filename,
          contentType: schema.attachments.contentType,
          contentId: schema.attachments.contentId,
        })
        .from(schema.attachments)
        .where(and(eq(schema.attachments.accountId, opts.visitor.accountId), inArray(schema.attachments.messageId, ids)))
    : [];
  return rows.reverse().map((r) => ({
    id: r.id,
    from: r.kind === 'incoming' ? 'visitor' : 'agent',
    // An agent's inline image is shown in the bubble: its "[image: name]" line (the mail's text) is left out.
    text: r.kind === 'outgoing' ? withoutImageLines(r.text, files.filter((f) => f.messageId === r.id && f.contentId)) : r.text,
    at: r.createdAt.toISOString(),
    // First names only: the visitor needs to know who answers, not the team's full names.
    author: r.kind === 'outgoing' ? r.botName ?? r.firstName ?? null : null,
    edited: Boolean(r.editedAt),
    ...(choices?.messageId === r.id ? { buttons: choices.labels } : {}),
    attachments: files
      .filter((f) => f.messageId === r.id)
      .map((f) => ({ name: f.filename, url: signFileLink({ accountId: opts.visitor.accountId, attachmentId: f.id }), kind: mediaKind(f.contentType) })),
  }));
}

function withoutImageLines(text: string, inline: { filename: string }[]) {
  if (!inline.length) return text;
  let out = text;
  for (const f of inline) out = out.split(`[image: ${f.filename}]`).join('');
  return out.replace(/\n{3,}/g, '\n\n').trim();
}

/** The id of the newest message the visitor sees (listVisitorMessages' first row, in one read): where a reply's list starts. */
export async function lastVisitorMessageId(visitor: WidgetVisitor) {
  if (!visitor.conversationId) return undefined;
  const m = schema.messages;
  const [row] = await getDb()
    .select({ id: m.id })
    .from(m)
    .innerJoin(schema.conversations, and(eq(schema.conversations.id, m.conversationId), eq(schema.conversations.accountId, visitor.accountId)))
    .where(
      and(
        eq(m.accountId, visitor.accountId),
        eq(m.conversationId, visitor.conversationId),
        isNull(m.deletedAt),
        isNull(schema.conversations.deletedAt),
        inArray(m.kind, ['incoming', 'outgoing']),
      ),
    )
    .orderBy(desc(m.id))
    .limit(1);
  return row?.id;
}

/** The buttons of a chatbot question the conversation's running bot waits on (ADR 075), if any. */
async function pendingChoices(opts: { accountId: number; conversationId: number }) {
  const r = schema.chatbotRuns;
  const [row] = await getDb()
    .select({ steps: schema.chatbots.steps, stepId: r.waitingStepId, messageId: r.waitingMessageId })
    .from(r)
    .innerJoin(schema.chatbots, and(eq(schema.chatbots.id, r.botId), eq(schema.chatbots.accountId, r.accountId)))
    .where(and(eq(r.accountId, opts.accountId), eq(r.conversationId, opts.conversationId), eq(r.status, 'running')));
  const step = row?.steps.find((s) => s.id === row.stepId);
  if (!row?.messageId || step?.type !== 'question') return null;
  return { messageId: row.messageId, labels: step.choices.map((c) => c.label) };
}

export type VisitorFile = { filename: string; contentType: string | null; bytes: Uint8Array };

/** Checks a visitor's file against the widget's limits; the message is the one the visitor sees. */
export async function checkVisitorFile(file: VisitorFile) {
  if (file.bytes.byteLength === 0) throw new WidgetInputError('The file is empty');
  if (file.bytes.byteLength > WIDGET_ATTACHMENT_MAX_BYTES) throw new WidgetInputError('Files must be at most 10 MB');
  const type = await detectContentType(file.bytes, file.contentType);
  if (!WIDGET_ATTACHMENT_TYPES.includes(type)) throw new WidgetInputError('Only images, PDF and text files can be sent');
}

/**
 * A message from the visitor: opens their conversation on the first one (source `web`), appends to it after.
 * The contact is the visitor's own (by visitor identity), or the one their name and email point to.
 */
/** The messages.external_id of a widget message sent with the key `clientId` (keys are the visitor's own). */
export const widgetMessageKey = (visitorId: string | number, clientId: string) => `widget:${visitorId}:${clientId}`;

/** A widget message key as the widget makes them (32 hex digits, or a UUID); anything else is refused. */
const WIDGET_CLIENT_ID = /^[A-Za-z0-9-]{8,64}$/;

export async function postVisitorMessage(opts: {
  visitor: WidgetVisitor;
  text: string;
  name?: string | null;
  email?: string | null;
  file?: VisitorFile | null;
  sourceType?: SourceType;
  subject?: string | null;
  /**
   * A message campaign this first message answers (ADR 082): the conversation opens with the campaign's words from
   * its agent, then the reply, and `onOpened` records the reply in the same transaction.
   */
  campaign?: { text: string; senderUserId: number | null; onOpened: (tx: Tx, conversationId: number) => Promise<unknown> } | null;
  /**
   * The widget's key of this message (ADR 143): a send that is retried (its answer lost when a node died, a proxy
   * error) carries the same key, and the message is kept once.
   */
  clientId?: FormDataEntryValue | null;
}) {
  const { clientId } = opts;
  if (clientId !== null && clientId !== undefined && (typeof clientId !== 'string' || !WIDGET_CLIENT_ID.test(clientId))) throw new WidgetInputError('The request is not valid');
  const text = opts.text.trim().slice(0, WIDGET_TEXT_MAX);
  if (!text && !opts.file) throw new WidgetInputError('Message is not allowed to be empty');
  if (opts.file) await checkVisitorFile(opts.file);
  const { visitor } = opts;
  const saved = opts.file
    ? await saveAttachment({
        accountId: visitor.accountId,
        messageId: null,
        filename: opts.file.filename,
        contentType: opts.file.contentType,
        bytes: opts.file.bytes,
      })
    : null;
  const body = text || `📎 ${saved!.filename}`;
  let keptBefore = false;
  try {
    const result = await getDb().transaction(async (tx) => {
      // Locks the visitor so that two first messages sent at once open one conversation, not two.
      const [fresh] = await tx
        .select()
        .from(schema.widgetVisitors)
        .where(and(eq(schema.widgetVisitors.accountId, visitor.accountId), eq(schema.widgetVisitors.id, visitor.id)))
        .for('update');
      if (!fresh) throw new WidgetInputError('This chat has ended. Reload the page to start again');
      // The visitor's row is locked: a retry of a message already kept finds it here, and keeps nothing new.
      const externalId = clientId ? widgetMessageKey(visitor.id, clientId) : null;
      if (externalId) {
        const [kept] = await tx
          .select({ id: schema.messages.id, conversationId: schema.messages.conversationId })
          .from(schema.messages)
          .where(and(eq(schema.messages.accountId, visitor.accountId), eq(schema.messages.externalId, externalId)))
          .limit(1);
        if (kept) {
          keptBefore = true;
          // The retry's copy of the file goes (the first send's is linked to the kept message).
          if (saved) await tx.delete(schema.attachments).where(and(eq(schema.attachments.accountId, visitor.accountId), eq(schema.attachments.id, saved.id)));
          return { conversationId: kept.conversationId, messageId: kept.id };
        }
      }
      let conversationId = fresh.conversationId;
      if (conversationId) {
        const [open] = await tx
          .select({ id: schema.conversations.id })
          .from(schema.conversations)
          .where(
            and(eq(schema.conversations.accountId, visitor.accountId), eq(schema.conversations.id, conversationId), isNull(schema.conversations.deletedAt)),
          );
        if (!open) conversationId = null;
      }
      let messageId: number;
      if (conversationId) {
        const message = await addMessage(tx, {
          accountId: visitor.accountId,
          conversationId,
          kind: 'incoming',
          text: body,
          senderContactId: fresh.contactId,
          externalId,
        });
        messageId = message.id;
      } else {
        const opened = await openConversation({
          tx,
          accountId: visitor.accountId,
          inboxId: visitor.inboxId,
          sourceType: opts.sourceType ?? 'web',
          subject: (opts.subject?.trim() || body).slice(0, 80),
          contact: {
            identity: fresh.externalUserId ? { channel: 'site_user', externalId: fresh.externalUserId } : { channel: 'widget', externalId: visitor.id },
            name: opts.name?.trim().slice(0, 100) || null,
            email: validEmail(opts.email),
          },
          message: opts.campaign ? { kind: 'outgoing', text: opts.campaign.text } : { kind: 'incoming', text: body, externalId },
          actorUserId: opts.campaign?.senderUserId ?? null,
        });
        conversationId = opened.conversation.id;
        messageId = opened.message.id;
        if (opts.campaign) {
          messageId = (await addMessage(tx, { accountId: visitor.accountId, conversationId, kind: 'incoming', text: body, senderContactId: opened.contact.id, externalId })).id;
          await opts.campaign.onOpened(tx, conversationId);
        }
        // A help-centre search shortly before, by this visitor, ended in this conversation (ADR 120).
        await recordSearchConversion(tx, { accountId: visitor.accountId, visitorId: visitor.id, conversationId });
        await tx
          .update(schema.widgetVisitors)
          .set({ conversationId, contactId: opened.contact.id, lastSeenAt: new Date() })
          .where(and(eq(schema.widgetVisitors.accountId, visitor.accountId), eq(schema.widgetVisitors.id, visitor.id)));
      }
      if (saved) await linkAttachments(tx, { accountId: visitor.accountId, messageId, ids: [saved.id] });
      return { conversationId, messageId };
    });
    // A retried send's file was kept with the first one: this copy goes.
    if (keptBefore && saved) await removeStoredFiles([saved.storageKey]);
    return { ...result, repeated: keptBefore };
  } catch (err) {
    if (saved) await removeStoredFiles([saved.storageKey]);
    throw err;
  }
}

/** "The visitor is typing" for the agents of the account (their socket forwards every account message). */
export async function publishVisitorTyping(opts: { visitor: WidgetVisitor; typing: boolean }) {
  if (!opts.visitor.conversationId) return;
  await publishToAccount(opts.visitor.accountId, { type: 'widget.typing', conversationId: opts.visitor.conversationId, who: 'visitor', typing: opts.typing });
}

/** "An agent is typing", for the visitor socket of that conversation (server/widget-ws.ts listens). */
export async function publishAgentTyping(opts: { accountId: number; conversationId: number; name: string; typing: boolean }) {
  await publishToAccount(opts.accountId, { type: 'widget.typing', conversationId: opts.conversationId, who: 'agent', name: opts.name, typing: opts.typing });
}

/** The visitors (ids) chatting in a conversation of the account: whom a new message or a typing signal is for. */
export async function visitorsOfConversation(opts: { accountId: number; conversationId: number }) {
  const rows = await getDb()
    .select({ id: schema.widgetVisitors.id })
    .from(schema.widgetVisitors)
    .where(and(eq(schema.widgetVisitors.accountId, opts.accountId), eq(schema.widgetVisitors.conversationId, opts.conversationId)));
  return rows.map((r) => r.id);
}

/** One message of a conversation as the visitor sees it (none for notes and system lines). */
export async function visitorMessage(opts: { accountId: number; conversationId: number; messageId: number }) {
  const list = await listVisitorMessages({
    visitor: { accountId: opts.accountId, conversationId: opts.conversationId } as WidgetVisitor,
    after: opts.messageId - 1,
    limit: 1,
  });
  return list.find((m) => m.id === opts.messageId);
}

/** A page view reported by the widget (the CRM's live view and the engine's page-URL conditions read it). */
export async function recordWidgetPageView(opts: {
  visitor: WidgetVisitor;
  url: string;
  title?: string | null;
  referrer?: string | null;
  userAgent?: string | null;
}) {
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    throw new WidgetInputError('A page view needs the page URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WidgetInputError('A page view needs the page URL');
  await getDb()
    .update(schema.widgetVisitors)
    .set({ lastSeenAt: new Date() })
    .where(and(eq(schema.widgetVisitors.accountId, opts.visitor.accountId), eq(schema.widgetVisitors.id, opts.visitor.id)));
  return recordPageView({
    accountId: opts.visitor.accountId,
    visitorId: opts.visitor.id,
    url: url.toString(),
    title: opts.title,
    referrer: opts.referrer,
    contactId: opts.visitor.contactId,
    userAgent: opts.userAgent,
  });
}

/**
 * The support-widget form sent while the team is offline: a ticket (source `support_widget`) from the contact it
 * names. The visitor's chat stays as it was: the answer goes out by email.
 */
export async function submitOfflineTicket(opts: {
  visitor: WidgetVisitor;
  values: { name?: string; email?: string; phone?: string; subject?: string; message?: string };
  file?: VisitorFile | null;
}) {
  const { visitor, values } = opts;
  if (opts.file) await checkVisitorFile(opts.file);
  const lines = [values.message?.trim() || '(no message)'];
  if (values.phone) lines.push(`Phone: ${values.phone}`);
  const saved = opts.file
    ? await saveAttachment({
        accountId: visitor.accountId,
        messageId: null,
        filename: opts.file.filename,
        contentType: opts.file.contentType,
        bytes: opts.file.bytes,
      })
    : null;
  try {
    return await getDb().transaction(async (tx) => {
      const email = validEmail(values.email);
      const opened = await openConversation({
        tx,
        accountId: visitor.accountId,
        inboxId: visitor.inboxId,
        sourceType: 'support_widget',
        subject: (values.subject?.trim() || 'Offline message').slice(0, 200),
        contact: {
          // The address they typed, when they typed one (the reply goes there); their browser otherwise.
          identity: email
            ? null
            : visitor.externalUserId
            ? { channel: 'site_user', externalId: visitor.externalUserId }
            : { channel: 'widget', externalId: visitor.id },
          email,
          phone: values.phone?.trim() || null,
          name: values.name?.trim() || null,
        },
        message: { kind: 'incoming', text: lines.join('\n\n') },
      });
      if (saved) await linkAttachments(tx, { accountId: visitor.accountId, messageId: opened.message.id, ids: [saved.id] });
      await recordSearchConversion(tx, { accountId: visitor.accountId, visitorId: visitor.id, conversationId: opened.conversation.id });
      return { conversationId: opened.conversation.id };
    });
  } catch (err) {
    if (saved) await removeStoredFiles([saved.storageKey]);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Delivering agents' replies (ADR 033)

/** How long an open widget socket counts the visitor present after each ping (the socket pings every 30 s). */
export const VISITOR_PRESENT_SECONDS = 75;
/** How long a reply waits for a visitor who has left before it goes by email, unless they come back. */
export const CHAT_EMAIL_DELAY_SECONDS = 120;

/** The widget socket's view of a visitor: present while a socket is open (pushed forward on each ping), gone on close. */
export async function markVisitorPresence(opts: { accountId: number; visitorId: string; present: boolean }) {
  const now = new Date();
  await getDb()
    .update(schema.widgetVisitors)
    .set(opts.present ? { presentUntil: new Date(now.getTime() + VISITOR_PRESENT_SECONDS * 1000), lastSeenAt: now } : { presentUntil: now })
    .where(and(eq(schema.widgetVisitors.accountId, opts.accountId), eq(schema.widgetVisitors.id, opts.visitorId)));
}

/** True when a visitor of the conversation has the widget or chat page open now. */
export async function isVisitorPresent(opts: { accountId: number; conversationId: number; since?: Date }) {
  const w = schema.widgetVisitors;
  const [row] = await getDb()
    .select({ id: w.id })
    .from(w)
    .where(
      and(
        eq(w.accountId, opts.accountId),
        eq(w.conversationId, opts.conversationId),
        // Present now, or (for a waiting reply) back since it was written.
        opts.since ? or(gt(w.presentUntil, new Date()), gt(w.lastSeenAt, opts.since)) : gt(w.presentUntil, new Date()),
      ),
    )
    .limit(1);
  return Boolean(row);
}

/**
 * The `web` channel: a reply reaches a present visitor in the widget at once (the visitor socket carries it). When
 * the visitor has left and gave an email, it waits CHAT_EMAIL_DELAY_SECONDS (channel.chat-email) and then goes by
 * email unless they came back; with no email it fails, saying so (the chat still shows it if they return).
 */
async function deliverWebChat(outgoing: OutgoingMessage): Promise<DeliveryResult> {
  const { message, conversation, contact } = outgoing;
  if (await isVisitorPresent({ accountId: message.accountId, conversationId: conversation.id })) return { via: 'widget' };
  if (!contact?.email) throw new DeliveryRefused('Not delivered: the visitor has left and gave no email address. The chat shows the reply if they come back.');
  const at = new Date(Date.now() + CHAT_EMAIL_DELAY_SECONDS * 1000);
  await getDb().transaction(async (tx) => {
    await enqueueInTx(tx, QUEUES.chatEmail, { messageId: message.id }, { startAfter: at });
    await tx
      .update(schema.messages)
      .set({ deliveryError: `The visitor has left: this reply goes to ${contact.email} by email at ${at.toISOString()} unless they come back` })
      .where(and(eq(schema.messages.accountId, message.accountId), eq(schema.messages.id, message.id)));
  });
  return { deferred: true };
}

registerChannelDeliverer('web', deliverWebChat);

/** The channel.chat-email timer: the visitor came back (the reply was seen in the chat) or it goes by email now. */
export async function emailChatReplyIfAway(opts: { messageId: number }) {
  const row = await loadOutgoing(opts.messageId);
  if (!row || row.message.deliveryStatus !== 'queued' || row.message.deletedAt) return { skipped: true };
  const base = { accountId: row.message.accountId, messageId: row.message.id, conversationId: row.conversation.id };
  if (await isVisitorPresent({ accountId: base.accountId, conversationId: base.conversationId, since: row.message.createdAt })) {
    await markDelivery({ ...base, status: 'sent', via: 'widget' });
    return { via: 'widget' };
  }
  return deliverMessage({ messageId: row.message.id, path: 'email' });
}

/**
 * A visitor opened the chat again: replies still waiting for them (or failed because they had left) are now
 * in front of them, so they count as delivered in the widget.
 */
export async function markChatRepliesSeen(opts: { visitor: WidgetVisitor }) {
  const { visitor } = opts;
  if (!visitor.conversationId) return;
  const m = schema.messages;
  const rows = await getDb()
    .update(m)
    .set({ deliveryStatus: 'sent', deliveredVia: 'widget', deliveryError: null })
    .where(
      and(
        eq(m.accountId, visitor.accountId),
        eq(m.conversationId, visitor.conversationId),
        eq(m.kind, 'outgoing'),
        inArray(m.deliveryStatus, ['queued', 'failed']),
        isNull(m.deliveredVia),
        isNull(m.deletedAt),
      ),
    )
    .returning({ id: m.id });
  for (const r of rows) {
    await publishToAccount(visitor.accountId, { type: 'message.updated', conversationId: visitor.conversationId, messageId: r.id, deliveryStatus: 'sent' });
  }
}
