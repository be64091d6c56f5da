import { and, eq, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { ChannelPart, OfferedCertificate } from '../../../db/schema/channels';
import { getLogger } from '../../utils/logger.server';
import { createNotification } from '../notifications/notifications.server';
import type { Permission } from '../roles/permissions';
import { requestMemo, requestMemoPrime } from '../../utils/request-scope.server';

/**
 * Channel health (ADR 024): each part of a channel (reading mail over IMAP, sending over the inbox's SMTP, the
 * SMS provider, the Facebook and X APIs) records when it last worked and, when it fails, the error in plain words
 * and since when. Settings pages show it, the inbox list and the shell flag failing channels, and the admins of
 * the channel get a notification when a part that worked starts failing (once per failure episode, not at every
 * retry or every brief reconnection) and one when that episode ends.
 */

export const PART_LABELS: Record<ChannelPart, string> = {
  imap: 'Reading mail (IMAP)',
  smtp: 'Sending mail (SMTP)',
  sms: 'SMS provider',
  facebook: 'Facebook',
  twitter: 'X (Twitter)',
};

const PART_PERMISSION: Record<ChannelPart, Permission> = {
  imap: 'manage_emails',
  smtp: 'manage_emails',
  sms: 'manage_sms',
  facebook: 'manage_facebook',
  twitter: 'manage_twitter',
};

const SETTINGS_PATH: Record<ChannelPart, string> = {
  imap: '/settings/emails',
  smtp: '/settings/emails',
  sms: '/settings/sms',
  facebook: '/settings/facebook',
  twitter: '/settings/twitter',
};

export type ChannelHealth = typeof schema.channelHealth.$inferSelect;

type Target = { accountId: number; inboxId: number; part: ChannelPart };

/**
 * Records that a part worked. A failure episode (failingSince set) ends only once the part has worked with no
 * failure for `settleMs` (0 by default: at once); a success sooner is part of the same episode and writes nothing,
 * so a connection that comes back for a moment and drops again is one episode, one notification (ADR 145). The
 * episode's end notifies the admins who were told it began (it had worked before: `lastSuccessAt` is kept from
 * before the episode until it ends). `open` says the episode is still open: call again once `settleMs` has passed.
 */
export async function recordChannelSuccess(opts: Target, o: { settleMs?: number } = {}) {
  const now = new Date();
  const db = getDb();
  const where = and(eq(schema.channelHealth.accountId, opts.accountId), eq(schema.channelHealth.inboxId, opts.inboxId), eq(schema.channelHealth.part, opts.part));
  const [row] = await db
    .select({ failingSince: schema.channelHealth.failingSince, lastSuccessAt: schema.channelHealth.lastSuccessAt, lastError: schema.channelHealth.lastError, lastErrorAt: schema.channelHealth.lastErrorAt })
    .from(schema.channelHealth)
    .where(where);
  if (row?.failingSince) {
    if (row.lastErrorAt && now.getTime() - row.lastErrorAt.getTime() < (o.settleMs ?? 0)) return { recovered: false, open: true };
    // Only one caller ends an episode: the one that still finds the episode it read.
    const [ended] = await db
      .update(schema.channelHealth)
      .set({ lastSuccessAt: now, failingSince: null, offeredCertificate: null, updatedAt: now })
      .where(and(where, eq(schema.channelHealth.failingSince, row.failingSince)))
      .returning({ inboxId: schema.channelHealth.inboxId });
    if (ended && row.lastSuccessAt) {
      await notifyAdmins({
        ...opts,
        title: (inbox) => `${inbox}: ${PART_LABELS[opts.part]} is working again`,
        body: row.lastError ? `The last error was: ${row.lastError}` : 'It works again.',
      }).catch((err) => getLogger().warn({ err: (err as Error).message }, 'channel health notification failed'));
    }
    return { recovered: Boolean(ended), open: false };
  }
  await db
    .insert(schema.channelHealth)
    .values({ accountId: opts.accountId, inboxId: opts.inboxId, part: opts.part, lastSuccessAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [schema.channelHealth.inboxId, schema.channelHealth.part],
      set: { lastSuccessAt: now, updatedAt: now },
      // A failure that began since the read above keeps its episode.
      setWhere: and(eq(schema.channelHealth.accountId, opts.accountId), isNull(schema.channelHealth.failingSince)),
    });
  return { recovered: false, open: false };
}

/**
 * Records a failure. The first failure after a success also notifies the channel's admins; later ones only
 * update the error. `error` must be plain words for an admin, never the customer's data.
 */
export async function recordChannelFailure(opts: Target & { error: string; certificate?: OfferedCertificate | null }) {
  const now = new Date();
  const error = opts.error.replace(/\u0000/g, '').slice(0, 500);
  const db = getDb();
  const [started] = await db
    .update(schema.channelHealth)
    .set({ failingSince: now, lastError: error, lastErrorAt: now, offeredCertificate: opts.certificate ?? null, updatedAt: now })
    .where(
      and(
        eq(schema.channelHealth.accountId, opts.accountId),
        eq(schema.channelHealth.inboxId, opts.inboxId),
        eq(schema.channelHealth.part, opts.part),
        isNull(schema.channelHealth.failingSince),
      ),
    )
    .returning({ lastSuccessAt: schema.channelHealth.lastSuccessAt });
  if (!started) {
    await db
      .insert(schema.channelHealth)
      .values({ ...opts, lastError: error, lastErrorAt: now, failingSince: now, offeredCertificate: opts.certificate ?? null, updatedAt: now })
      .onConflictDoUpdate({
        target: [schema.channelHealth.inboxId, schema.channelHealth.part],
        set: { lastError: error, lastErrorAt: now, offeredCertificate: opts.certificate ?? null, updatedAt: now },
        setWhere: eq(schema.channelHealth.accountId, opts.accountId),
      });
    return { started: false };
  }
  if (started.lastSuccessAt) {
    await notifyAdmins({ ...opts, title: (inbox) => `${inbox}: ${PART_LABELS[opts.part]} is failing`, body: error }).catch((err) => getLogger().warn({ err: (err as Error).message }, 'channel health notification failed'));
  }
  return { started: true };
}

async function notifyAdmins(opts: Target & { title: (inboxName: string) => string; body: string }) {
  const db = getDb();
  const [inbox] = await db
    .select({ name: schema.inboxes.name })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId)));
  if (!inbox) return;
  const admins = await db
    .select({ id: schema.users.id })
    .from(schema.users)
    .innerJoin(schema.roles, eq(schema.roles.id, schema.users.roleId))
    .where(
      and(
        eq(schema.users.accountId, opts.accountId),
        eq(schema.users.status, 'active'),
        eq(schema.users.hasAccess, true),
        sql`${PART_PERMISSION[opts.part]} = any(${schema.roles.permissions})`,
      ),
    );
  for (const admin of admins) {
    await createNotification({
      accountId: opts.accountId,
      userId: admin.id,
      title: opts.title(inbox.name),
      body: opts.body,
      link: `${SETTINGS_PATH[opts.part]}/${opts.inboxId}`,
    });
  }
}

/** The health of one inbox's parts. */
export async function getChannelHealth(opts: { accountId: number; inboxId: number }) {
  return getDb()
    .select()
    .from(schema.channelHealth)
    .where(and(eq(schema.channelHealth.accountId, opts.accountId), eq(schema.channelHealth.inboxId, opts.inboxId)))
    .orderBy(schema.channelHealth.part);
}

/** The account's failing parts, with their inbox: what the shell and the inbox list flag. */
export function listFailingChannels(opts: { accountId: number }) {
  // The shell's banner and the inbox page both show them: read once per request.
  return requestMemo(`failing-channels ${opts.accountId}`, () => readFailingChannels(opts));
}

type FailingRow = { inboxId: number; inboxName: string; part: ChannelPart; lastError: string | null; failingSince: Date | string };

const withLinks = (rows: FailingRow[]) =>
  rows.map((r) => ({ ...r, failingSince: new Date(r.failingSince), label: PART_LABELS[r.part], link: `${SETTINGS_PATH[r.part]}/${r.inboxId}` }));

/**
 * The failing parts as one JSON column of another statement: the app context reads them with the session, so a
 * page's shell costs no statement of its own (ADR 110). `accountId` is that statement's account id column.
 */
export function failingChannelsColumn(accountId: SQL) {
  return sql<FailingRow[]>`(select coalesce(json_agg(json_build_object('inboxId', ch.inbox_id, 'inboxName', i.name, 'part', ch.part, 'lastError', ch.last_error, 'failingSince', ch.failing_since) order by ch.failing_since), '[]'::json)
    from channel_health ch join inboxes i on i.id = ch.inbox_id and i.account_id = ch.account_id
    where ch.account_id = ${accountId} and ch.failing_since is not null)`;
}

/** What `failingChannelsColumn` read, kept for this request's `listFailingChannels`. */
export function primeFailingChannels(accountId: number, rows: FailingRow[]) {
  requestMemoPrime(`failing-channels ${accountId}`, Promise.resolve(withLinks(rows)));
}

async function readFailingChannels(opts: { accountId: number }) {
  const rows = await getDb()
    .select({
      inboxId: schema.channelHealth.inboxId,
      inboxName: schema.inboxes.name,
      part: schema.channelHealth.part,
      lastError: schema.channelHealth.lastError,
      failingSince: schema.channelHealth.failingSince,
    })
    .from(schema.channelHealth)
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, schema.channelHealth.inboxId), eq(schema.inboxes.accountId, schema.channelHealth.accountId)))
    .where(and(eq(schema.channelHealth.accountId, opts.accountId), isNotNull(schema.channelHealth.failingSince)))
    .orderBy(schema.channelHealth.failingSince);
  return withLinks(rows as FailingRow[]);
}

/** Forgets an inbox part's state (its settings changed: what failed before says nothing about the new ones). */
export async function clearChannelHealth(opts: Target) {
  await getDb()
    .delete(schema.channelHealth)
    .where(and(eq(schema.channelHealth.accountId, opts.accountId), eq(schema.channelHealth.inboxId, opts.inboxId), eq(schema.channelHealth.part, opts.part)));
}

/** What a settings page shows of an inbox's health (no certificate material). */
export async function describeChannelHealth(opts: { accountId: number; inboxId: number; parts: ChannelPart[] }) {
  const rows = await getChannelHealth(opts);
  return rows
    .filter((r) => opts.parts.includes(r.part))
    .map((r) => ({ part: r.part, label: PART_LABELS[r.part], lastSuccessAt: r.lastSuccessAt, lastError: r.lastError, lastErrorAt: r.lastErrorAt, failingSince: r.failingSince }));
}
