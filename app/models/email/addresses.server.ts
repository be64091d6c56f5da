import crypto from 'node:crypto';
import { getConfig } from '../../utils/env.server';

/**
 * The addresses and ids Parley puts on mail, and how it recognises them when they come back. Everything that
 * names a conversation is signed with the session secret, so a sender cannot drop mail into a conversation
 * (or another account's) by guessing numbers.
 */

function sign(purpose: string, value: string) {
  return crypto.createHmac('sha256', getConfig().sessionSecret).update(`${purpose}:${value}`).digest('hex').slice(0, 12);
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export function inboundDomain() {
  return getConfig().inboundEmailDomain;
}

/** Where the support mailbox forwards to: `<token>@<INBOUND_EMAIL_DOMAIN>`. */
export function forwardingAddress(inbox: { forwardingToken: string | null }) {
  return inbox.forwardingToken ? `${inbox.forwardingToken}@${inboundDomain()}` : null;
}

/** The Reply-To of a reply sent from Parley's own sender: the forwarding address plus a signed conversation token. */
export function replyAddress(inbox: { forwardingToken: string | null; accountId: number }, conversationId: number) {
  if (!inbox.forwardingToken) return null;
  return `${inbox.forwardingToken}+c${conversationId}.${sign('conversation', `${inbox.accountId}:${conversationId}`)}@${inboundDomain()}`;
}

/**
 * Reads a recipient on the inbound domain: the forwarding token and, for a reply address, the conversation it
 * names (its signature is checked later, once the account is known). Null for other domains.
 */
export function parseInboundRecipient(address: string) {
  const at = address.lastIndexOf('@');
  if (at < 1) return null;
  const local = address.slice(0, at).toLowerCase();
  const domain = address.slice(at + 1).toLowerCase().replace(/\.$/, '');
  if (domain !== inboundDomain()) return null;
  const [token, tag] = local.split('+', 2);
  if (!/^[a-z0-9_-]{4,64}$/.test(token)) return null;
  const m = tag ? /^c(\d{1,10})\.([0-9a-f]{12})$/.exec(tag) : null;
  return { token, conversationHint: m ? { conversationId: Number(m[1]), sig: m[2] } : null };
}

/** True when a conversation token (from a reply address or one of our Message-IDs) was made for this account. */
export function verifyConversationToken(accountId: number, hint: { conversationId: number; sig: string }) {
  return safeEqual(sign('conversation', `${accountId}:${hint.conversationId}`), hint.sig);
}

/**
 * A Message-ID for a reply. Its left part names the conversation (signed): a customer's mail client that keeps
 * only In-Reply-To still threads even if the stored id were lost.
 */
export function newMessageId(opts: { accountId: number; conversationId: number; domain: string }) {
  const nonce = crypto.randomBytes(8).toString('hex');
  return `<parley.${nonce}.c${opts.conversationId}.${sign('conversation', `${opts.accountId}:${opts.conversationId}`)}@${opts.domain}>`;
}

/** The conversation named by one of our Message-IDs, if the id is ours. */
export function conversationHintOfMessageId(messageId: string) {
  const m = /^<?parley\.[0-9a-f]{16}\.c(\d{1,10})\.([0-9a-f]{12})@/i.exec(messageId.trim());
  return m ? { conversationId: Number(m[1]), sig: m[2].toLowerCase() } : null;
}

export const FORWARDING_CHECK_HEADER = 'X-Parley-Forwarding-Check';

/** The header carried by the forwarding check mail: which inbox it was sent for, signed. */
export function forwardingCheckValue(inbox: { id: number; accountId: number }) {
  return `${inbox.id}.${sign('forwarding-check', `${inbox.accountId}:${inbox.id}`)}`;
}

export function verifyForwardingCheck(inbox: { id: number; accountId: number }, value: string) {
  return safeEqual(forwardingCheckValue(inbox), value.trim());
}

/** The domain part of an address, lower-cased. */
export function domainOf(address: string | null | undefined) {
  const at = (address ?? '').lastIndexOf('@');
  return at < 0 ? '' : (address ?? '').slice(at + 1).trim().toLowerCase();
}

/** The bare address of a "Name <address>" string (MAIL_FROM). */
export function bareAddress(value: string) {
  const m = /<([^>]+)>/.exec(value);
  return (m ? m[1] : value).trim();
}
