import { and, asc, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { metrics } from '../../utils/metrics.server';
import { getLogger } from '../../utils/logger.server';
import { outboundFailure } from '../../utils/outbound-guard.server';
import { singleton } from '../../utils/singleton.server';
import { DeliveryRefused, registerChannelDeliverer, type OutgoingMessage } from '../channels/delivery.server';
import { randomToken } from '../../utils/password.server';
import { listAttachmentsOfMessage, readAttachment } from '../inbox/attachments.server';
import { htmlForMail } from '../inbox/inline-media.server';
import type { Inbox } from '../inbox/inboxes.server';
import { bareAddress, domainOf, FORWARDING_CHECK_HEADER, forwardingAddress, forwardingCheckValue, newMessageId, replyAddress } from './addresses.server';
import { getEmailInbox, readEmailSettings } from './email-inboxes.server';
import { plainConnectionError, smtpConnectionOptions } from './mail-connection.server';
import { mailAccessTokenSource } from './oauth-mail.server';
import { recordChannelFailure, recordChannelSuccess } from '../channels/health.server';

/**
 * Mail that leaves an inbox: agents' replies (the `email` channel deliverer) and the forwarding check. It goes
 * through the inbox's own SMTP server when it has one, else Parley's SMTP_URL, else into the development
 * mailbox (outbound_emails) so that replies work on a fresh machine. See ADR 013.
 */

export type Route = { kind: 'inbox-smtp' | 'smtp'; transport: nodemailer.Transporter; inboxId?: number } | { kind: 'mailbox' };

/** An inbox connected over OAuth logs in to SMTP with its grant's access token (ADR 158). */
export function inboxAccessToken(inbox: Inbox) {
  return readEmailSettings(inbox).smtp?.auth === 'xoauth2' ? mailAccessTokenSource({ accountId: inbox.accountId, inboxId: inbox.id }) : undefined;
}

export function routeFor(inbox: Inbox): Route {
  const { smtp } = readEmailSettings(inbox);
  if (smtp?.host && inbox.email) {
    return {
      kind: 'inbox-smtp',
      inboxId: inbox.id,
      transport: nodemailer.createTransport(smtpConnectionOptions(smtp, { accessToken: inboxAccessToken(inbox) })),
    };
  }
  const { smtpUrl } = getConfig();
  // The same transport as the rest of Parley's mail (app/models/mail).
  if (smtpUrl) return { kind: 'smtp', transport: singleton('smtp-transport', () => nodemailer.createTransport(smtpUrl)) };
  return { kind: 'mailbox' };
}

/**
 * The sender of an inbox's mail, DKIM-friendly: with the inbox's own SMTP the support address itself;
 * otherwise Parley's MAIL_FROM address (the domain Parley signs for) under the agent's and inbox's name,
 * with replies directed back to the inbox.
 */
export function senderFor(inbox: Inbox, route: Route, displayName: string, conversationId: number | null) {
  if (route.kind === 'inbox-smtp') return { from: { name: displayName, address: inbox.email! }, replyTo: undefined };
  const { mode } = readEmailSettings(inbox);
  // Forwarding inboxes get their answers on the signed reply address; IMAP and HTTP inboxes read the support mailbox.
  const replyTo =
    mode === 'forwarding' || !inbox.email
      ? ((conversationId ? replyAddress(inbox, conversationId) : forwardingAddress(inbox)) ?? inbox.email ?? undefined)
      : inbox.email;
  return { from: { name: displayName, address: bareAddress(getConfig().mailFrom) }, replyTo };
}

async function send(opts: { accountId: number; route: Route; mail: Mail.Options; record: { to: string; subject: string; text: string; html: string | null } }) {
  const db = getDb();
  const row = { accountId: opts.accountId, to: opts.record.to.toLowerCase(), subject: opts.record.subject, text: opts.record.text, html: opts.record.html };
  if (opts.route.kind === 'mailbox') {
    await db.insert(schema.outboundEmails).values({ ...row, transport: 'mailbox', status: 'stored' });
    metrics().mailOut.inc({ kind: 'reply', result: 'stored' });
    return { delivered: false };
  }
  try {
    await opts.route.transport.sendMail(opts.mail);
    metrics().mailOut.inc({ kind: 'reply', result: 'sent' });
    await db.insert(schema.outboundEmails).values({ ...row, transport: 'smtp', status: 'sent' });
    if (opts.route.inboxId) await recordChannelSuccess({ accountId: opts.accountId, inboxId: opts.route.inboxId, part: 'smtp' }).catch(() => {});
    return { delivered: true };
  } catch (err) {
    metrics().mailOut.inc({ kind: 'reply', result: 'failed' });
    getLogger().warn({ err: (err as Error).message, accountId: opts.accountId, route: opts.route.kind }, 'email delivery failed');
    // An inbox's own SMTP server is the account's choice: a failure to reach it says "refused" or "failed", not what
    // answered (ADR 021). A server that took the mail's envelope and then refused it (550 5.1.1 for a recipient) is
    // shown as SMTP_URL's route shows it, code and reason: the agent needs them, and they map no network (ADR 145).
    // A failed OAuth grant (ADR 158) is said as it is: the admin must reconnect the mailbox, and the agent should know.
    const oauthFailure = (err as { mailOAuth?: unknown }).mailOAuth === true;
    const shown =
      opts.route.kind === 'inbox-smtp' && !isSmtpRefusal(err) && !oauthFailure ? new Error(outboundFailure("Delivery through the inbox's SMTP server", err)) : (err as Error);
    await db.insert(schema.outboundEmails).values({ ...row, transport: 'smtp', status: 'failed', error: shown.message.slice(0, 500) });
    // A refused recipient is about that mail; a connection or login failure is about the channel.
    const recipientRefused = /^5\d\d$/.test(String((err as { responseCode?: number }).responseCode ?? '')) && (err as { command?: string }).command === 'RCPT TO';
    if (opts.route.inboxId && !recipientRefused) {
      await recordChannelFailure({ accountId: opts.accountId, inboxId: opts.route.inboxId, part: 'smtp', error: plainConnectionError(err, 'mail server') }).catch(() => {});
    }
    throw shown;
  }
}

/** A reply of the SMTP server to the mail's envelope or content (MAIL FROM, RCPT TO, DATA), as nodemailer reports it. */
function isSmtpRefusal(err: unknown) {
  const e = err as { responseCode?: unknown; command?: unknown };
  return typeof e?.responseCode === 'number' && e.responseCode >= 400 && e.responseCode < 600 && ['MAIL FROM', 'RCPT TO', 'DATA'].includes(String(e.command));
}

function escapeHtml(text: string) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function textToHtml(text: string) {
  return `<div>${escapeHtml(text).replace(/\r?\n/g, '<br>')}</div>`;
}

async function agentName(accountId: number, userId: number | null) {
  if (!userId) return null;
  const [u] = await getDb()
    .select({ firstName: schema.users.firstName, lastName: schema.users.lastName })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, userId)));
  return u ? `${u.firstName} ${u.lastName}`.trim() || null : null;
}

/** The Message-ID of an outgoing message, made once and stored first, so that a retried send keeps it. */
async function ensureMessageId(message: OutgoingMessage['message'], domain: string) {
  if (message.emailMessageId) return message.emailMessageId;
  const id = newMessageId({ accountId: message.accountId, conversationId: message.conversationId, domain });
  const [row] = await getDb()
    .update(schema.messages)
    .set({ emailMessageId: id })
    .where(and(eq(schema.messages.accountId, message.accountId), eq(schema.messages.id, message.id), isNull(schema.messages.emailMessageId)))
    .returning({ id: schema.messages.emailMessageId });
  if (row?.id) return row.id;
  const [again] = await getDb()
    .select({ id: schema.messages.emailMessageId })
    .from(schema.messages)
    .where(and(eq(schema.messages.accountId, message.accountId), eq(schema.messages.id, message.id)));
  return again?.id ?? id;
}

/**
 * In-Reply-To and References from the thread: every earlier mail of the conversation that has a Message-ID
 * (the first and the latest 19, as mail clients trim them), answering the customer's latest mail.
 */
async function threadHeaders(message: OutgoingMessage['message']) {
  const earlier = await getDb()
    .select({ id: schema.messages.emailMessageId, kind: schema.messages.kind })
    .from(schema.messages)
    .where(
      and(
        eq(schema.messages.accountId, message.accountId),
        eq(schema.messages.conversationId, message.conversationId),
        lt(schema.messages.id, message.id),
        isNotNull(schema.messages.emailMessageId),
      ),
    )
    .orderBy(asc(schema.messages.id));
  const ids = [...new Set(earlier.map((m) => m.id!))];
  const references = ids.length > 20 ? [ids[0], ...ids.slice(-19)] : ids;
  const inReplyTo = [...earlier].reverse().find((m) => m.kind === 'incoming')?.id ?? ids.at(-1);
  return { inReplyTo: inReplyTo ?? undefined, references };
}

/**
 * Inboxes without a mailbox of their own (contact forms, web chat, internal) get a reply token the first time one
 * of their conversations is answered by email: the customer's answer comes back on the signed reply address made
 * from it, into the same conversation (ADR 033).
 */
async function withReplyToken(inbox: Inbox): Promise<Inbox> {
  if (inbox.forwardingToken) return inbox;
  const token = randomToken(9).toLowerCase().replace(/[^a-z0-9]/g, 'x');
  await getDb()
    .update(schema.inboxes)
    .set({ forwardingToken: token })
    .where(and(eq(schema.inboxes.accountId, inbox.accountId), eq(schema.inboxes.id, inbox.id), isNull(schema.inboxes.forwardingToken)));
  const [row] = await getDb()
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, inbox.accountId), eq(schema.inboxes.id, inbox.id)));
  return row ?? inbox;
}

/**
 * Sends one agent reply to the conversation's contact by email: the `email` channel, and the road of every
 * conversation whose channel has no sender of its own (forms, internal tickets, web chats whose visitor left).
 * Throws to be retried; DeliveryRefused when there is no address.
 */
export async function deliverEmailReply(outgoing: OutgoingMessage) {
  const { message, conversation, contact } = outgoing;
  if (!contact?.email) throw new DeliveryRefused('Not sent: the contact has no email address');
  const inbox = outgoing.inbox.channelType === 'email' ? outgoing.inbox : await withReplyToken(outgoing.inbox);
  const route = routeFor(inbox);
  const agent = await agentName(message.accountId, message.senderUserId);
  const { from, replyTo } = senderFor(inbox, route, agent ? `${agent} from ${inbox.name}` : inbox.name, conversation.id);
  const messageId = await ensureMessageId(message, domainOf(from.address) || 'parley.invalid');
  const { inReplyTo, references } = await threadHeaders(message);
  const subjectBase = conversation.subject.trim();
  // A reply to something the customer wrote (a mail, a form, a chat) says so; an agent's first mail does not.
  const isReply = references.length > 0 || conversation.messageCount > 1;
  const subject = isReply ? (/^re:/i.test(subjectBase) ? subjectBase : `Re: ${subjectBase || 'your message'}`) : subjectBase || `Message from ${inbox.name}`;
  const files = await listAttachmentsOfMessage({ accountId: message.accountId, messageId: message.id });
  // Inline images (ADR 156): the stored HTML shows them as /attachments/<id>; the mail names them by cid:.
  const { html, inline } = message.html ? htmlForMail(message.html, files) : { html: textToHtml(message.text), inline: new Set<number>() };
  const attachments: Mail.Attachment[] = [];
  for (const f of files) {
    const found = await readAttachment({ accountId: message.accountId, id: f.id });
    if (!found) throw new Error(`Attachment ${f.filename} is missing from storage`);
    attachments.push({ filename: f.filename, content: Buffer.from(found.bytes), contentType: f.contentType, ...(inline.has(f.id) ? { cid: f.contentId!, contentDisposition: 'inline' as const } : {}) });
  }
  const cc = message.email?.cc ?? [];
  const bcc = message.email?.bcc ?? [];
  await send({
    accountId: message.accountId,
    route,
    mail: {
      from,
      replyTo,
      to: contact.email,
      cc: cc.length ? cc : undefined,
      bcc: bcc.length ? bcc : undefined,
      subject,
      text: message.text,
      html,
      messageId,
      inReplyTo,
      references: references.length ? references : undefined,
      attachments,
    },
    record: { to: contact.email, subject, text: message.text, html },
  });
  return { externalId: messageId, via: 'email' };
}

registerChannelDeliverer('email', deliverEmailReply);

/**
 * Mails the support address a check carrying a signed header: when it comes back through forwarding, the
 * inbound path marks the inbox verified. Returns undefined when the account has no such email inbox.
 */
export async function sendForwardingCheck(opts: { accountId: number; id: number }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  if (!inbox.email) throw new Error('The inbox has no support address');
  const route = routeFor(inbox);
  const target = forwardingAddress(inbox);
  const { from } = senderFor(inbox, route, `Parley (${inbox.name})`, null);
  const subject = `Forwarding check for ${inbox.name}`;
  const text = [
    `This message checks that mail sent to ${inbox.email} reaches Parley.`,
    '',
    `Forward ${inbox.email} to ${target}. When this message arrives there, the inbox "${inbox.name}" is marked verified;`,
    'it does not open a conversation. You can ignore it otherwise.',
  ].join('\n');
  await send({
    accountId: inbox.accountId,
    route,
    mail: {
      from,
      to: inbox.email,
      subject,
      text,
      headers: { [FORWARDING_CHECK_HEADER]: forwardingCheckValue(inbox), 'Auto-Submitted': 'auto-generated' },
    },
    record: { to: inbox.email, subject, text, html: null },
  });
  return inbox;
}
