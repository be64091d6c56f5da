import crypto from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { EmailInboxSettings, MailOAuthGrant } from '../../../db/schema/inbox';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { authorizationUrl, exchangeCode, OAuth2Error, refreshTokens, type OAuth2Provider } from '../../utils/oauth2.server';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { parseJsonObject } from '../../utils/json';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import { clearChannelHealth, recordChannelFailure } from '../channels/health.server';
import { createInbox, InboxNameTakenError, listInboxes, updateInbox } from '../inbox/inboxes.server';
import { notifyEmailInboxChanged, readEmailSettings } from './email-inboxes.server';
import type { AccessTokenSource } from './mail-connection.server';

/**
 * Gmail / Google Workspace and Microsoft 365 mailboxes connected over OAuth 2 (ADR 158): the consent URL, the code
 * exchange that creates or updates the email inbox (IMAP and SMTP with XOAUTH2), and the access token that IMAP and
 * SMTP log in with, refreshed shortly before it lapses. A refresh holds the inbox row's lock (SELECT … FOR UPDATE), so
 * two nodes never refresh one grant at once: the second finds the first's new token and uses it. A grant the provider
 * no longer honours (invalid_grant) is marked revoked and shown in the inbox's channel health, with Reconnect.
 */

export type MailOAuthProvider = MailOAuthGrant['provider'];
export const MAIL_OAUTH_PROVIDERS: MailOAuthProvider[] = ['google', 'microsoft'];
export const MAIL_OAUTH_LABEL: Record<MailOAuthProvider, string> = { google: 'Google', microsoft: 'Microsoft 365' };
/** What the operator sets for each, said on the settings page when it is missing. */
export const MAIL_OAUTH_ENV: Record<MailOAuthProvider, string> = {
  google: 'GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET',
  microsoft: 'MICROSOFT_OAUTH_CLIENT_ID and MICROSOFT_OAUTH_CLIENT_SECRET',
};

/** The sealed tokens' purpose (secret box associated data): they open only as this account's mail grant. */
const PURPOSE = 'email-oauth';
/** A token with less life than this left is refreshed before use: an IMAP login or an SMTP send never races its expiry. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

const PRESETS: Record<
  MailOAuthProvider,
  { scope: string[]; imap: { host: string; port: number; secure: boolean }; smtp: { host: string; port: number; secure: boolean; tls?: 'starttls' } }
> = {
  google: {
    scope: ['https://mail.google.com/', 'email'],
    imap: { host: 'imap.gmail.com', port: 993, secure: true },
    smtp: { host: 'smtp.gmail.com', port: 465, secure: true },
  },
  microsoft: {
    scope: ['https://outlook.office.com/IMAP.AccessAsUser.All', 'https://outlook.office.com/SMTP.Send', 'offline_access', 'email'],
    imap: { host: 'outlook.office365.com', port: 993, secure: true },
    smtp: { host: 'smtp.office365.com', port: 587, secure: false, tls: 'starttls' },
  },
};

/**
 * An OAuth failure in words for the admin. `mailOAuth` lets plainConnectionError and the sender show it as it is
 * (nodemailer hands the very error object on, with its own `code` EAUTH written over any code it had).
 */
export class MailOAuthError extends Error {
  readonly mailOAuth = true;
  constructor(message: string, readonly revoked = false) {
    super(message);
  }
}

export function isMailOAuthConfigured(provider: MailOAuthProvider) {
  return getConfig().mailOAuth[provider] !== null;
}

export function parseMailOAuthProvider(value: string | undefined): MailOAuthProvider | null {
  return value === 'google' || value === 'microsoft' ? value : null;
}

function oauthClient(provider: MailOAuthProvider): OAuth2Provider {
  const c = getConfig().mailOAuth;
  if (provider === 'google') {
    const g = c.google;
    if (!g) throw new MailOAuthError(`Google is not set up on this server: the operator must set ${MAIL_OAUTH_ENV.google}.`);
    return {
      name: 'Google',
      authorizeUrl: `${g.accountsBase}/o/oauth2/v2/auth`,
      tokenUrl: `${g.oauthBase}/token`,
      revokeUrl: `${g.oauthBase}/revoke`,
      clientId: g.clientId,
      clientSecret: g.clientSecret,
    };
  }
  const m = c.microsoft;
  if (!m) throw new MailOAuthError(`Microsoft 365 is not set up on this server: the operator must set ${MAIL_OAUTH_ENV.microsoft}.`);
  const base = `${m.loginBase}/${encodeURIComponent(m.tenant)}/oauth2/v2.0`;
  return { name: 'Microsoft', authorizeUrl: `${base}/authorize`, tokenUrl: `${base}/token`, clientId: m.clientId, clientSecret: m.clientSecret };
}

/** The OAuth `state`: the account, user and provider it was started for, signed and short-lived, so a callback cannot be replayed into another session. */
export function signMailOAuthState(opts: { accountId: number; userId: number; provider: MailOAuthProvider; inboxId?: number | null }) {
  const payload = `${opts.accountId}.${opts.userId}.${opts.inboxId ?? 0}.${Date.now().toString(36)}.${crypto.randomBytes(8).toString('base64url')}`;
  const mac = crypto.createHmac('sha256', getConfig().sessionSecret).update(`mail-oauth:${opts.provider}:${payload}`).digest('base64url').slice(0, 32);
  return `${payload}.${mac}`;
}

/** The inbox a state was started for (0: a new one), or null when it is not this user's, not this provider's, forged or older than 15 minutes. */
export function verifyMailOAuthState(state: string, opts: { accountId: number; userId: number; provider: MailOAuthProvider }) {
  const parts = state.split('.');
  if (parts.length !== 6) return null;
  const [a, u, i, t, n, mac] = parts;
  const expected = crypto
    .createHmac('sha256', getConfig().sessionSecret)
    .update(`mail-oauth:${opts.provider}:${a}.${u}.${i}.${t}.${n}`)
    .digest('base64url')
    .slice(0, 32);
  if (mac.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return null;
  if (Number(a) !== opts.accountId || Number(u) !== opts.userId) return null;
  if (Date.now() - parseInt(t, 36) > 15 * 60_000) return null;
  return { inboxId: Number(i) || null };
}

/** Where the admin consents: offline access for a refresh token, and consent again so that Google sends one every time. */
export function mailConsentUrl(opts: { provider: MailOAuthProvider; redirectUri: string; state: string }) {
  const extra: Record<string, string> = opts.provider === 'google' ? { access_type: 'offline', prompt: 'consent' } : { prompt: 'select_account' };
  return authorizationUrl(oauthClient(opts.provider), { redirectUri: opts.redirectUri, scope: PRESETS[opts.provider].scope, state: opts.state, extra });
}

/** The mailbox's address: the id token's email claim, else Google's userinfo endpoint. */
async function grantedAddress(provider: MailOAuthProvider, tokens: { accessToken: string; idClaims: Record<string, unknown> | null }) {
  const claims = tokens.idClaims ?? {};
  const fromId = [claims.email, claims.preferred_username, claims.upn].find((v): v is string => typeof v === 'string' && v.includes('@'));
  if (fromId) return fromId.toLowerCase();
  if (provider === 'google') {
    const base = getConfig().mailOAuth.google!.apiBase;
    try {
      const res = await guardedRequest(`${base}/oauth2/v3/userinfo`, {
        headers: { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/json' },
        timeoutMs: 15_000,
        maxBytes: 64 * 1024,
      });
      const body = parseJsonObject(res.text) ?? {};
      if (res.ok && typeof body.email === 'string' && body.email.includes('@')) return body.email.toLowerCase();
    } catch {
      // Said below.
    }
  }
  throw new MailOAuthError(`${MAIL_OAUTH_LABEL[provider]} did not say which mailbox was connected (the email scope was not granted).`);
}

function sealGrant(accountId: number, t: { accessToken: string; refreshToken: string; expiresAt: Date | null }) {
  return {
    accessToken: sealSecret(t.accessToken, { accountId, purpose: PURPOSE }),
    refreshToken: sealSecret(t.refreshToken, { accountId, purpose: PURPOSE }),
    expiresAt: (t.expiresAt ?? new Date(Date.now() + 3600_000)).toISOString(),
  };
}

/**
 * Finishes the consent: trades the code for tokens and sets up the mailbox's inbox (a new one, or the one being
 * reconnected, or the account's inbox that already reads this address), reading over IMAP and sending over SMTP with
 * XOAUTH2. Returns the inbox.
 */
export async function connectMailOAuth(opts: {
  accountId: number;
  actorId: number;
  provider: MailOAuthProvider;
  code: string;
  redirectUri: string;
  inboxId?: number | null;
}) {
  const client = oauthClient(opts.provider);
  let tokens;
  try {
    tokens = await exchangeCode(client, { code: opts.code, redirectUri: opts.redirectUri });
  } catch (err) {
    if (err instanceof OAuth2Error) throw new MailOAuthError(err.message);
    throw err;
  }
  if (!tokens.refreshToken)
    throw new MailOAuthError(
      `${MAIL_OAUTH_LABEL[opts.provider]} sent no refresh token: remove Parley's access in the account's security settings and connect again.`,
    );
  const email = await grantedAddress(opts.provider, tokens);
  const preset = PRESETS[opts.provider];
  const grantId = crypto.randomBytes(9).toString('base64url');
  const oauth: MailOAuthGrant = {
    provider: opts.provider,
    email,
    grantId,
    ...sealGrant(opts.accountId, { ...tokens, refreshToken: tokens.refreshToken }),
    revokedAt: null,
    revokedReason: null,
  };
  const existing = (await listInboxes({ accountId: opts.accountId, channelType: 'email' })).find((i) =>
    opts.inboxId ? i.id === opts.inboxId : readEmailSettings(i).oauth?.email === email || (i.email ?? '').toLowerCase() === email,
  );
  const current = existing ? readEmailSettings(existing) : undefined;
  const sameMailbox = current?.imap?.host === preset.imap.host && current?.imap?.user === email;
  const settings: EmailInboxSettings = {
    mode: 'imap',
    imap: {
      ...preset.imap,
      user: email,
      password: '',
      auth: 'xoauth2',
      grantId,
      mailbox: current?.imap?.mailbox || 'INBOX',
      // Reconnecting the same mailbox keeps the reader's place: no mail read twice, none skipped.
      ...(sameMailbox ? { lastUid: current?.imap?.lastUid, uidValidity: current?.imap?.uidValidity } : {}),
    },
    smtp: { ...preset.smtp, user: email, password: '', auth: 'xoauth2', grantId },
    oauth,
  };
  let inbox;
  if (existing) {
    inbox = await updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: existing.id, changes: { settings, email } });
  } else {
    const base = email;
    for (let n = 1; !inbox; n++) {
      try {
        inbox = await createInbox({
          accountId: opts.accountId,
          actorId: opts.actorId,
          channelType: 'email',
          name: n === 1 ? base : `${base} (${n})`,
          email,
          settings,
        });
      } catch (err) {
        if (!(err instanceof InboxNameTakenError) || n > 20) throw err;
      }
    }
  }
  if (!inbox) throw new MailOAuthError('The inbox to reconnect was not found.');
  // A new grant: what failed with the old one says nothing about it.
  await clearChannelHealth({ accountId: opts.accountId, inboxId: inbox.id, part: 'imap' });
  await clearChannelHealth({ accountId: opts.accountId, inboxId: inbox.id, part: 'smtp' });
  await notifyEmailInboxChanged(inbox.id);
  return inbox;
}

const REVOKED = (provider: MailOAuthProvider) =>
  `${MAIL_OAUTH_LABEL[provider]} no longer accepts Parley's access to this mailbox (the access was revoked, the password changed, or it expired): reconnect with ${MAIL_OAUTH_LABEL[provider]}.`;

/**
 * The inbox's access token, refreshed first when it has less than REFRESH_MARGIN_MS left (or `renew`: the server
 * refused it). The refresh runs under the inbox row's lock: a node that waited finds the token the other stored.
 */
export async function mailAccessToken(opts: { accountId: number; inboxId: number; renew?: boolean }): Promise<string> {
  const context = { accountId: opts.accountId, purpose: PURPOSE };
  const read = (settings: unknown) => {
    const grant = readEmailSettings({ settings: settings as Record<string, unknown> }).oauth;
    if (!grant) throw new MailOAuthError('This inbox is not connected over OAuth.');
    if (grant.revokedAt) throw new MailOAuthError(REVOKED(grant.provider), true);
    return grant;
  };
  const where = and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId));
  const [row] = await getDb().select({ settings: schema.inboxes.settings }).from(schema.inboxes).where(where);
  if (!row) throw new MailOAuthError('The inbox no longer exists.');
  const seen = read(row.settings);
  const fresh = (g: MailOAuthGrant) => Date.parse(g.expiresAt) - Date.now() > REFRESH_MARGIN_MS;
  if (!opts.renew && fresh(seen)) return openSecret(seen.accessToken, context);

  const outcome = await getDb().transaction(async (tx) => {
    const [locked] = await tx.select({ settings: schema.inboxes.settings }).from(schema.inboxes).where(where).for('update');
    if (!locked) throw new MailOAuthError('The inbox no longer exists.');
    const grant = read(locked.settings);
    // Another node refreshed while this one waited for the lock (or since this one read): use its token.
    if (grant.accessToken !== seen.accessToken && fresh(grant)) return { token: openSecret(grant.accessToken, context) };
    if (!opts.renew && fresh(grant)) return { token: openSecret(grant.accessToken, context) };
    let tokens;
    try {
      tokens = await refreshTokens(oauthClient(grant.provider), { refreshToken: openSecret(grant.refreshToken, context) });
    } catch (err) {
      if (err instanceof OAuth2Error && err.code === 'invalid_grant') {
        const reason = REVOKED(grant.provider);
        await tx
          .update(schema.inboxes)
          .set({
            settings: sql`jsonb_set(${schema.inboxes.settings}, '{oauth}', (${schema.inboxes.settings}->'oauth') || ${JSON.stringify({
              revokedAt: new Date().toISOString(),
              revokedReason: reason,
            })}::jsonb)`,
          })
          .where(where);
        return { revoked: reason };
      }
      if (err instanceof OAuth2Error) throw new MailOAuthError(`The access token could not be renewed: ${err.message}`);
      throw err;
    }
    const sealed = sealGrant(opts.accountId, {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken ?? openSecret(grant.refreshToken, context),
      expiresAt: tokens.expiresAt,
    });
    await tx
      .update(schema.inboxes)
      .set({ settings: sql`jsonb_set(${schema.inboxes.settings}, '{oauth}', (${schema.inboxes.settings}->'oauth') || ${JSON.stringify(sealed)}::jsonb)` })
      .where(where);
    return { token: tokens.accessToken };
  });
  if ('revoked' in outcome && outcome.revoked) {
    getLogger().warn({ accountId: opts.accountId, inboxId: opts.inboxId }, 'mail oauth grant revoked');
    // Both parts stop working with the grant: the inbox's health says so at once, and the admins are told.
    for (const part of ['imap', 'smtp'] as const)
      await recordChannelFailure({ accountId: opts.accountId, inboxId: opts.inboxId, part, error: outcome.revoked }).catch(() => {});
    throw new MailOAuthError(outcome.revoked, true);
  }
  return outcome.token!;
}

/** For nodemailer's XOAUTH2 login (smtpConnectionOptions): asks again with renew when the server refused a token. */
export function mailAccessTokenSource(opts: { accountId: number; inboxId: number }): AccessTokenSource {
  return (renew) => mailAccessToken({ ...opts, renew });
}

/** What the settings page shows of an inbox's grant (no token). */
export function describeMailOAuth(settings: EmailInboxSettings) {
  const g = settings.oauth;
  if (!g) return null;
  return { provider: g.provider, label: MAIL_OAUTH_LABEL[g.provider], email: g.email, revoked: Boolean(g.revokedAt), revokedReason: g.revokedReason ?? null };
}
