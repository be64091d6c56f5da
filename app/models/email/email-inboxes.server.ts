import { and, eq, sql } from 'drizzle-orm';
import { isRefusedHost, REFUSED_DESTINATION_MESSAGE } from '../../utils/outbound-guard.server';
import { getDb, getSql, schema } from '../../../db/client';
import type { EmailInboxSettings } from '../../../db/schema/inbox';
import { createInbox, deleteInbox, getInbox, InboxNameTakenError, listInboxes, updateInbox, type Inbox } from '../inbox/inboxes.server';
import { forwardingAddress } from './addresses.server';
import { clearChannelHealth, getChannelHealth, recordChannelFailure, recordChannelSuccess } from '../channels/health.server';
import { normaliseFingerprint, testImapConnection, testSmtpConnection, type ConnectionTest } from './mail-connection.server';
import { MailOAuthError, mailAccessTokenSource } from './oauth-mail.server';
import { INBOX_NAME_TAKEN_MESSAGE, PASSWORD_REQUIRED_MESSAGE, type EmailMode, type ImapSettingsInput, type MailSecurity, type SmtpSettingsInput } from './schemas';

/**
 * Email inboxes as Settings → Channels → emails sees them: the inbox row plus its email settings (how mail
 * arrives, IMAP and SMTP credentials). Passwords stay on the server: what a page gets says only whether one is set.
 */

/** Heard by the IMAP manager of every web process: an IMAP inbox was created, changed or deleted. */
export const EMAIL_INBOX_CHANNEL = 'parley_email_inboxes';

export class EmailInboxInputError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export function readEmailSettings(inbox: Pick<Inbox, 'settings'>): EmailInboxSettings {
  const s = (inbox.settings ?? {}) as Partial<EmailInboxSettings>;
  return { mode: s.mode === 'imap' || s.mode === 'http' ? s.mode : 'forwarding', imap: s.imap, smtp: s.smtp, ...(s.oauth ? { oauth: s.oauth } : {}) };
}

/** The security choice of stored settings (rows saved before the choice existed: TLS or opportunistic STARTTLS). */
export function securityOf(server: { secure: boolean; tls?: 'starttls' | 'none' }): MailSecurity {
  return server.secure ? 'tls' : server.tls === 'none' ? 'none' : 'starttls';
}

/** The stored form of a security choice; without the select, the checkbox decides and STARTTLS stays opportunistic. */
function securityFields(input: { secure: boolean; security?: MailSecurity }) {
  if (!input.security) return { secure: input.secure };
  return { secure: input.security === 'tls', ...(input.security === 'tls' ? {} : { tls: input.security }) };
}

/** What a settings page may show: no password, no secret unless the inbox takes mail over HTTP. */
export function describeEmailInbox(inbox: Inbox) {
  const s = readEmailSettings(inbox);
  return {
    id: inbox.id,
    name: inbox.name,
    email: inbox.email,
    mode: s.mode,
    forwardingAddress: forwardingAddress(inbox),
    verifiedAt: inbox.forwardingVerifiedAt,
    imap: s.imap
      ? {
          host: s.imap.host,
          port: s.imap.port,
          secure: s.imap.secure,
          security: securityOf(s.imap),
          user: s.imap.user,
          mailbox: s.imap.mailbox,
          hasPassword: Boolean(s.imap.password),
          xoauth2: s.imap.auth === 'xoauth2',
          pinnedFingerprint: s.imap.pin?.fingerprint ?? null,
        }
      : null,
    smtp: s.smtp
      ? {
          host: s.smtp.host,
          port: s.smtp.port,
          secure: s.smtp.secure,
          security: securityOf(s.smtp),
          user: s.smtp.user,
          hasPassword: Boolean(s.smtp.password),
          xoauth2: s.smtp.auth === 'xoauth2',
          pinnedFingerprint: s.smtp.pin?.fingerprint ?? null,
        }
      : null,
    oauth: s.oauth ? { provider: s.oauth.provider, email: s.oauth.email, revoked: Boolean(s.oauth.revokedAt), revokedReason: s.oauth.revokedReason ?? null } : null,
    createdAt: inbox.createdAt,
  };
}

export async function notifyEmailInboxChanged(inboxId: number) {
  await getSql()`select pg_notify(${EMAIL_INBOX_CHANNEL}, ${String(inboxId)})`;
}

export async function listEmailInboxes(opts: { accountId: number }) {
  const rows = await listInboxes({ accountId: opts.accountId, channelType: 'email' });
  return rows.map(describeEmailInbox);
}

/** The account's email inbox, or undefined (other channels and other accounts' inboxes are not found). */
export async function getEmailInbox(opts: { accountId: number; id: number }) {
  const inbox = await getInbox(opts);
  return inbox?.channelType === 'email' ? inbox : undefined;
}

export async function createEmailInbox(opts: { accountId: number; actorId: number; name: string; email: string; mode: EmailMode }) {
  try {
    const inbox = await createInbox({ ...opts, channelType: 'email', settings: { mode: opts.mode } satisfies EmailInboxSettings });
    return inbox;
  } catch (err) {
    if (err instanceof InboxNameTakenError) throw new EmailInboxInputError(INBOX_NAME_TAKEN_MESSAGE, 'name');
    throw err;
  }
}

/** Name, support address and mode. A new support address must prove its forwarding again. */
export async function updateEmailInbox(opts: { accountId: number; actorId: number; id: number; name: string; email: string; mode: EmailMode }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  const settings = { ...readEmailSettings(inbox), mode: opts.mode };
  const emailChanged = (inbox.email ?? '') !== opts.email.toLowerCase();
  try {
    const updated = await updateInbox({
      accountId: opts.accountId,
      actorId: opts.actorId,
      id: inbox.id,
      changes: { name: opts.name, email: opts.email.toLowerCase(), settings, ...(emailChanged ? { forwardingVerifiedAt: null } : {}) },
    });
    if (updated) await notifyEmailInboxChanged(updated.id);
    return updated;
  } catch (err) {
    if (err instanceof InboxNameTakenError) throw new EmailInboxInputError(INBOX_NAME_TAKEN_MESSAGE, 'name');
    throw err;
  }
}

export async function deleteEmailInbox(opts: { accountId: number; actorId: number; id: number }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  const deleted = await deleteInbox({ ...opts, id: inbox.id });
  if (deleted) await notifyEmailInboxChanged(deleted.id);
  return deleted;
}

/** IMAP credentials; an empty password keeps the stored one. Another mailbox starts reading from its end again. */
export async function setImapSettings(opts: { accountId: number; actorId: number; id: number; input: ImapSettingsInput }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  const current = readEmailSettings(inbox);
  const password = opts.input.password || current.imap?.password;
  if (!password) throw new EmailInboxInputError(PASSWORD_REQUIRED_MESSAGE, 'password');
  if (await isRefusedHost(opts.input.host)) throw new EmailInboxInputError(REFUSED_DESTINATION_MESSAGE, 'host');
  const same = current.imap && current.imap.host === opts.input.host && current.imap.user === opts.input.user && current.imap.mailbox === opts.input.mailbox && current.imap.port === opts.input.port;
  const sameServer = current.imap && current.imap.host === opts.input.host && current.imap.port === opts.input.port;
  const imap = {
    host: opts.input.host,
    port: opts.input.port,
    ...securityFields(opts.input),
    user: opts.input.user,
    password,
    mailbox: opts.input.mailbox,
    // A pinned certificate belongs to the server it was read from.
    ...(sameServer && current.imap?.pin ? { pin: current.imap.pin } : {}),
    ...(same ? { lastUid: current.imap?.lastUid, uidValidity: current.imap?.uidValidity } : {}),
  };
  const updated = await updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { settings: { ...current, imap } } });
  if (updated) await notifyEmailInboxChanged(updated.id);
  return updated;
}

/** The inbox's own SMTP server (PUT inbox/{id}/smtp); replies then leave from the support address. */
export async function setSmtpSettings(opts: { accountId: number; actorId: number; id: number; input: SmtpSettingsInput }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  const current = readEmailSettings(inbox);
  // No user name: a relay that does not authenticate, so no password either.
  const password = opts.input.user ? opts.input.password || current.smtp?.password : '';
  if (opts.input.user && !password) throw new EmailInboxInputError(PASSWORD_REQUIRED_MESSAGE, 'password');
  if (await isRefusedHost(opts.input.host)) throw new EmailInboxInputError(REFUSED_DESTINATION_MESSAGE, 'host');
  const sameServer = current.smtp && current.smtp.host === opts.input.host && current.smtp.port === opts.input.port;
  const smtp = {
    host: opts.input.host,
    port: opts.input.port,
    ...securityFields(opts.input),
    user: opts.input.user,
    password: password ?? '',
    ...(sameServer && current.smtp?.pin ? { pin: current.smtp.pin } : {}),
  };
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { settings: { ...current, smtp } } });
}

/** Back to Parley's own sender. */
export async function clearSmtpSettings(opts: { accountId: number; actorId: number; id: number }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  const { smtp: _smtp, ...rest } = readEmailSettings(inbox);
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { settings: rest } });
}

/** Inboxes that read a mailbox over IMAP (with their credentials set), across accounts: the IMAP manager's work list. */
export async function listImapInboxes() {
  return getDb()
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.channelType, 'email'), sql`${schema.inboxes.settings}->>'mode' = 'imap'`, sql`${schema.inboxes.settings} ? 'imap'`));
}

/**
 * Records how far the IMAP reader got, without an inbox_updated event (it is progress, not a change of
 * settings) and without touching the rest of the settings.
 */
export async function saveImapProgress(opts: { accountId: number; id: number; lastUid: number; uidValidity: string }) {
  await getDb()
    .update(schema.inboxes)
    .set({
      settings: sql`jsonb_set(jsonb_set(${schema.inboxes.settings}, '{imap,lastUid}', ${String(opts.lastUid)}::jsonb), '{imap,uidValidity}', ${JSON.stringify(opts.uidValidity)}::jsonb)`,
    })
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.id), sql`${schema.inboxes.settings} ? 'imap'`));
}

/**
 * Trusts, for this inbox's IMAP or SMTP server only, the certificate it offered on the last failed attempt, if
 * the fingerprint the admin confirms is that certificate's (ADR 025). False when there is nothing to trust or
 * the fingerprint differs (the server may have changed its certificate since).
 */
export async function trustServerCertificate(opts: { accountId: number; actorId: number; id: number; part: 'imap' | 'smtp'; fingerprint: string }) {
  const inbox = await getEmailInbox(opts);
  if (!inbox) return undefined;
  const settings = readEmailSettings(inbox);
  const server = settings[opts.part];
  const offered = (await getChannelHealth({ accountId: opts.accountId, inboxId: inbox.id })).find((h) => h.part === opts.part)?.offeredCertificate;
  const given = normaliseFingerprint(opts.fingerprint);
  if (!server || !offered || !given || offered.fingerprint !== given) return false;
  const changed = { ...settings, [opts.part]: { ...server, pin: { fingerprint: offered.fingerprint, pem: offered.pem } } };
  const updated = await updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { settings: changed } });
  if (updated && opts.part === 'imap') await notifyEmailInboxChanged(updated.id);
  return Boolean(updated);
}

/**
 * Tests the inbox's saved IMAP or SMTP settings the way they will be used (log in, open the mailbox / greet and
 * authenticate) and records the outcome as the channel's health, so that a settings page never says "Updated"
 * about settings that cannot work without saying so.
 */
export async function checkMailServer(opts: { accountId: number; id: number; part: 'imap' | 'smtp' }): Promise<ConnectionTest | undefined> {
  const inbox = await getEmailInbox(opts);
  const server = inbox ? readEmailSettings(inbox)[opts.part] : undefined;
  if (!inbox || !server) return undefined;
  const target = { accountId: opts.accountId, inboxId: inbox.id, part: opts.part };
  let result: ConnectionTest;
  try {
    // An XOAUTH2 login (ADR 158) takes the grant's access token, refreshed if it is about to lapse.
    const tokens = server.auth === 'xoauth2' ? mailAccessTokenSource({ accountId: opts.accountId, inboxId: inbox.id }) : undefined;
    result =
      opts.part === 'imap'
        ? await testImapConnection(readEmailSettings(inbox).imap!, { accessToken: tokens ? await tokens(false) : undefined })
        : await testSmtpConnection(server, { accessToken: tokens });
  } catch (err) {
    if (!(err instanceof MailOAuthError)) throw err;
    result = { ok: false, error: err.message, certificate: null };
  }
  if (result.ok) await recordChannelSuccess(target);
  else {
    // New settings: what failed before says nothing about them, and this is not a channel that worked then broke.
    await clearChannelHealth(target);
    await recordChannelFailure({ ...target, error: result.error, certificate: result.certificate });
  }
  return result;
}
