import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getLogger } from '../../utils/logger.server';
import { accountLink } from '../../utils/tenant.server';
import { segmentWhere } from '../crm/segments.server';
import { domainOf } from '../email/addresses.server';
import { inboxAccessToken, routeFor, senderFor, type Route } from '../email/outbound.server';
import { sendCustomSms } from '../channels/custom-sms.server';
import { readSmsSettings, smsWebhookUrls } from '../channels/sms.server';
import { sendTwilioSms } from '../channels/twilio.server';
import { SMS_OPT_OUT_FOOTER } from './sms';
import { paceSms, smsRate } from './sms-pacing.server';
import { emitEvent } from '../events/events.server';
import { getInbox } from '../inbox/inboxes.server';
import { renderTemplate, type TemplateContact } from '../productivity/templates';
import type { Campaign } from './campaigns.server';
import { campaignLayout, personalise } from './email-layout.server';
import { connectSentMarks, isSmtpRecipientRefusal, literalIdList, runBulkSend, sendRawMail, type HeldEnd } from '../mail/bulk-send.server';
import { bulkSmtp, type BulkSmtp } from '../mail/smtp-lanes.server';
import { readEmailSettings } from '../email/email-inboxes.server';
import { smtpConnectionOptions } from '../email/mail-connection.server';
import { pixelPath, signTracking } from './tracking.server';
import { pushSegmentWhere } from './push-segments.server';
import { pushSenderOf } from './push.server';
import { planAllows } from '../plans/enforce.server';
import { FEATURE_DENIED_MESSAGE, type FeatureKey } from '../plans/catalogue';

const r = schema.campaignRecipients;
const c = schema.campaigns;

/** How many recipients one claim takes, and how long one job sends before it queues the next (ADR 064). */
const CLAIM_SIZE = 100;
const SLICE_MS = 20_000;
/** A claim older than this belonged to a sender that died: its recipients are taken again. */
const STALE_CLAIM = '2 minutes';

function ratePerSecond() {
  const n = Number(process.env.PARLEY_CAMPAIGN_EMAILS_PER_SECOND ?? 1000);
  return Number.isFinite(n) && n > 0 ? n : 1000;
}
function lanes() {
  const n = Number(process.env.PARLEY_CAMPAIGN_SEND_LANES ?? 8);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 8;
}

/**
 * Freezes the audience (ADR 064): every contact of the segment, as it is now (dynamic segments are evaluated
 * here), with an email address not on the account's suppression list, once per address; for push, every
 * subscription the push segment matches now (ADR 083). Returns how many.
 */
async function freezeRecipients(campaign: Campaign) {
  const db = getDb();
  return db.transaction(async (tx) => {
    const audience = campaign.kind === 'push' ? await pushAudience(tx, campaign) : await contactAudience(tx, campaign);
    const now = new Date();
    const [won] = await tx
      .update(c)
      .set({ status: 'sending', startedAt: now, updatedAt: now })
      .where(and(eq(c.accountId, campaign.accountId), eq(c.id, campaign.id), eq(c.status, 'scheduled'), isNull(c.startedAt)))
      .returning({ id: c.id });
    if (!won) return null;
    const inserted = await tx.execute(audience);
    const recipients = Number((inserted as unknown as { count: number }).count ?? 0);
    await tx
      .update(c)
      .set({ recipientCount: recipients })
      .where(and(eq(c.accountId, campaign.accountId), eq(c.id, campaign.id)));
    await emitEvent(tx, {
      accountId: campaign.accountId,
      type: 'campaign_status_changed',
      subjectType: 'campaign',
      subjectId: campaign.id,
      payload: { status: 'sending', recipients },
      actor: { type: 'engine' },
    });
    return recipients;
  });
}

/** The insert of an email or SMS campaign's recipients: the segment's contacts with an address, not suppressed. */
async function contactAudience(tx: Tx, campaign: Campaign) {
  const [segment] = await tx
    .select()
    .from(schema.segments)
    .where(and(eq(schema.segments.accountId, campaign.accountId), eq(schema.segments.id, campaign.segmentId ?? -1)));
  if (!segment) throw new Error('the campaign has no segment');
  const where = segmentWhere({ accountId: campaign.accountId, segment });
  const ct = schema.contacts;
  const channel = campaign.kind === 'sms' ? 'sms' : 'email';
  // Email: the lower-cased address; SMS: the stored (E.164) phone number. Either way once per address.
  const address = channel === 'sms' ? sql`${ct.phone}` : sql`lower(${ct.email})`;
  const present = channel === 'sms' ? sql`${ct.phone} ~ '^[+]?[0-9]{4,16}$'` : sql`${ct.email} like '%@%'`;
  return sql`
    insert into ${r} (account_id, campaign_id, contact_id, address)
    select ${campaign.accountId}, ${campaign.id}, ${ct.id}, ${address}
    from ${ct}
    where ${ct.accountId} = ${campaign.accountId} and ${present}
      ${where ? sql`and ${where}` : sql``}
      and not exists (select 1 from ${schema.campaignSuppressions} s
        where s.account_id = ${campaign.accountId} and s.channel = ${channel} and s.address = ${address})
    on conflict do nothing`;
}

/** The insert of a push campaign's recipients: one per subscription its push segment matches (`push:<id>`). */
async function pushAudience(tx: Tx, campaign: Campaign) {
  const [segment] = await tx
    .select()
    .from(schema.pushSegments)
    .where(and(eq(schema.pushSegments.accountId, campaign.accountId), eq(schema.pushSegments.id, campaign.pushSegmentId ?? -1)));
  if (!segment) throw new Error('the campaign has no push segment');
  const s = schema.pushSubscriptions;
  return sql`
    insert into ${r} (account_id, campaign_id, contact_id, address)
    select ${campaign.accountId}, ${campaign.id}, ${s.contactId}, 'push:' || ${s.id}
    from ${s}
    where ${s.accountId} = ${campaign.accountId} and ${pushSegmentWhere(segment)}
    on conflict do nothing`;
}

/** Freezes a scheduled campaign's audience without sending (tests: a pause between the freeze and the first claim). */
export async function freezeForTest(opts: { accountId: number; campaignId: number }) {
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.campaignId)));
  return row ? freezeRecipients(row) : null;
}

type Claimed = { id: number; address: string; contactId: number | null; firstName: string | null; lastName: string | null; addressJson: TemplateContact['address'] };

/** Takes up to CLAIM_SIZE pending recipients (or ones a dead sender left claimed), each by one sender only. */
async function claimRecipients(campaign: Campaign, limit = CLAIM_SIZE): Promise<Claimed[]> {
  const rows = await getDb().execute(sql`
    with picked as (
      select id from ${r}
      where account_id = ${campaign.accountId} and campaign_id = ${campaign.id}
        and (status = 'pending' or (status = 'sending' and claimed_at < now() - ${STALE_CLAIM}::interval))
      order by id limit ${limit} for update skip locked)
    update ${r} set status = 'sending', claimed_at = now() from picked where ${r}.id = picked.id
    returning ${r}.id, ${r}.address, ${r}.contact_id as "contactId",
      (select first_name from contacts ct where ct.id = ${r}.contact_id and ct.account_id = ${campaign.accountId}) as "firstName",
      (select last_name from contacts ct where ct.id = ${r}.contact_id and ct.account_id = ${campaign.accountId}) as "lastName",
      (select address from contacts ct where ct.id = ${r}.contact_id and ct.account_id = ${campaign.accountId}) as "addressJson"`);
  return (rows as unknown as Claimed[]).map((row) => ({ ...row, id: Number(row.id) }));
}

type CampaignRoute = { kind: 'mailbox' } | { kind: 'smtp' | 'inbox-smtp'; smtp: BulkSmtp };

/** Campaign mail goes through the bulk path's connections (one set per process and server, ADR 084): Parley's SMTP
 * URL, or the inbox's own server. */
function campaignRoute(inbox: Parameters<typeof routeFor>[0], route: Route): CampaignRoute {
  if (route.kind === 'mailbox') return route;
  const server = route.kind === 'smtp' ? getConfig().smtpUrl! : smtpConnectionOptions(readEmailSettings(inbox).smtp!, { accessToken: inboxAccessToken(inbox) });
  return { kind: route.kind, smtp: bulkSmtp(server, Math.min(lanes(), 32)) };
}

export function trackingLinks(domain: string, accountId: number, recipientId: number) {
  return {
    unsubscribeUrl: accountLink(domain, `/c/u/${signTracking({ k: 'u', a: accountId, r: recipientId })}`),
    pixelUrl: accountLink(domain, pixelPath({ accountId, recipientId })),
    clickUrl: (url: string) => accountLink(domain, `/c/c/${signTracking({ k: 'c', a: accountId, r: recipientId, u: url })}`),
  };
}

async function senderOf(campaign: Campaign) {
  const inbox = campaign.inboxId ? await getInbox({ accountId: campaign.accountId, id: campaign.inboxId }) : undefined;
  if (!inbox || inbox.channelType !== 'email' || !inbox.email) throw new Error('the campaign has no email sender');
  const [account] = await getDb().select({ domain: schema.accounts.domain, name: schema.accounts.name }).from(schema.accounts).where(eq(schema.accounts.id, campaign.accountId));
  const base = routeFor(inbox);
  const { from, replyTo } = senderFor(inbox, base, inbox.name, null);
  return { inbox, account: account!, route: campaignRoute(inbox, base), from, replyTo };
}

type Sender = { send: (one: Claimed, held?: HeldEnd) => Promise<void>; isRefusal: (err: unknown) => boolean };

async function emailSenderOf(campaign: Campaign): Promise<Sender> {
  const sender = await senderOf(campaign);
  return {
    send: async (one, held) => {
      const mail = await mailFor(campaign, sender, {
        recipientId: one.id,
        address: one.address,
        contact: { firstName: one.firstName, lastName: one.lastName, email: one.address, address: one.addressJson },
      });
      await deliver(sender.route, campaign.accountId, mail, held);
    },
    isRefusal: isRecipientRefusal,
  };
}

/** An SMS campaign goes through its SMS inbox: Twilio's API or the account's custom gateway (ADR 066). */
async function smsSenderOf(campaign: Campaign): Promise<Sender> {
  const inbox = campaign.inboxId ? await getInbox({ accountId: campaign.accountId, id: campaign.inboxId }) : undefined;
  if (!inbox || inbox.channelType !== 'sms') throw new Error('the campaign has no SMS inbox');
  const settings = readSmsSettings(inbox);
  const urls = smsWebhookUrls(inbox);
  const rate = smsRate(settings);
  return {
    send: async (one) => {
      await paceSms(inbox.id, rate);
      const body = `${renderTemplate(campaign.bodyText, { firstName: one.firstName, lastName: one.lastName, address: one.addressJson })}${SMS_OPT_OUT_FOOTER}`;
      if (settings.provider === 'twilio') await sendTwilioSms({ settings, to: one.address, body, statusCallback: urls.status });
      else
        await sendCustomSms({
          settings,
          secret: inbox.secret ?? '',
          payload: { type: 'message', id: `campaign-${campaign.id}-${one.id}`, inboxId: inbox.id, conversationId: 0, from: settings.phoneNumber, to: one.address, text: body, createdAt: new Date().toISOString() },
        });
    },
    // A 4xx from the provider about this number (invalid, unreachable, opted out at the carrier) fails this recipient only.
    isRefusal: (err) => {
      const status = Number((err as { status?: number }).status ?? 0);
      return status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429;
    },
  };
}

/** One message to one address: the mail a recipient gets, or a test of it. */
async function mailFor(
  campaign: Campaign,
  sender: Awaited<ReturnType<typeof senderOf>>,
  to: { recipientId: number; address: string; contact: TemplateContact },
) {
  const layout = await campaignLayout(campaign.bodyHtml, { senderName: sender.inbox.name });
  const links = trackingLinks(sender.account.domain, campaign.accountId, to.recipientId);
  const { html, text } = personalise(layout, campaign.bodyText, {
    contact: to.contact,
    unsubscribeUrl: links.unsubscribeUrl,
    clickUrl: campaign.trackClicks ? links.clickUrl : undefined,
    pixelUrl: campaign.trackOpens ? links.pixelUrl : undefined,
  });
  const domain = domainOf(sender.from.address) || 'parley.invalid';
  return {
    from: sender.from,
    replyTo: sender.replyTo,
    to: to.address,
    subject: renderTemplate(campaign.subject, to.contact),
    html,
    text,
    // The same recipient always gets the same Message-ID, so a resend after a crash is recognisable as the same mail.
    messageId: `<campaign.${campaign.id}.${to.recipientId}.a${campaign.accountId}@${domain}>`,
    headers: {
      'List-Unsubscribe': `<${links.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'X-Parley-Campaign': String(campaign.id),
    },
  };
}

async function deliver(route: CampaignRoute, accountId: number, mail: Awaited<ReturnType<typeof mailFor>>, held?: HeldEnd) {
  if (route.kind === 'mailbox') {
    await getDb()
      .insert(schema.outboundEmails)
      .values({ accountId, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, transport: 'mailbox', status: 'stored' });
    return;
  }
  // Prepared bytes with an explicit envelope: no per-mail MIME composing (ADR 084).
  await sendRawMail(route.smtp, mail, held);
}

const isRecipientRefusal = isSmtpRecipientRefusal;

/** Marks these recipients sent (only rows still `sending`) and moves the campaign's counter by as many, in one statement. */
export function sentMarkStatement(accountId: number, campaignId: number, ids: number[]) {
  const list = literalIdList(ids);
  const a = Number(accountId);
  const cid = Number(campaignId);
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(cid)) throw new Error('the account or campaign id is not an integer');
  return `with m as (update campaign_recipients set status = 'sent', sent_at = now()
      where account_id = ${a} and id in (${list}) and status = 'sending' returning 1)
    update campaigns set sent_count = sent_count + (select count(*) from m) where account_id = ${a} and id = ${cid}`;
}

/**
 * The `campaigns.send` job (ADR 064): starts a scheduled campaign whose time has come (freezing its audience), then
 * sends claimed recipients for up to SLICE_MS and queues itself again while recipients remain. Pausing or cancelling
 * is seen at the next claim; what was claimed and not sent goes back to pending.
 */
export async function runCampaignSend(opts: { accountId: number; campaignId: number }) {
  const db = getDb();
  const load = async () => {
    const [row] = await db
      .select()
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.campaignId)));
    return row;
  };
  let campaign = await load();
  if (!campaign || (campaign.kind !== 'email' && campaign.kind !== 'sms' && campaign.kind !== 'push')) return { sent: 0, done: true };
  // A plan without the campaign's kind (or without campaigns) sends nothing more (ADR 157), judged before each slice.
  if ((campaign.status === 'scheduled' || campaign.status === 'sending') && !(await planAllows({ accountId: opts.accountId, key: CAMPAIGN_FLAG[campaign.kind] }))) {
    await stopForPlan(campaign);
    return { sent: 0, done: true };
  }
  if (campaign.status === 'scheduled') {
    // A job queued for an earlier schedule (the campaign was unscheduled and scheduled later) leaves it alone.
    if (campaign.scheduledAt && campaign.scheduledAt.getTime() > Date.now() + 1000) return { sent: 0, done: false };
    // Only one job freezes: the row moves from scheduled to sending under its lock, with the audience, in one transaction.
    if ((await freezeRecipients(campaign)) === null) return { sent: 0, done: false };
    campaign = (await load())!;
  }
  if (campaign.status !== 'sending') return { sent: 0, done: true };

  const route = campaign.kind === 'email' ? 'smtp' : 'other';
  const sender = campaign.kind === 'sms' ? await smsSenderOf(campaign) : campaign.kind === 'push' ? await pushSenderOf(campaign) : await emailSenderOf(campaign);
  const channel = campaign.kind === 'sms' ? 'sms' : campaign.kind === 'push' ? 'push' : 'email';
  const mine = (ids: number[]) => and(eq(r.accountId, opts.accountId), inArray(r.id, ids));
  let counted = { sent: 0, failed: 0 };
  // Counters on the campaign row move with each group of sent marks, not per mail.
  const bump = async (sent: number, failed: number) => {
    counted = { sent: counted.sent + sent, failed: counted.failed + failed };
    await db
      .update(c)
      .set({ sentCount: sql`${c.sentCount} + ${sent}`, failedCount: sql`${c.failedCount} + ${failed}` })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, campaign.id)));
  };
  // The shared bulk-send loop (ADR 084): claims in chunks, pooled lanes, a sent mark right after each accept.
  const stats = await runBulkSend<Claimed & { suppressed?: boolean }>(
    {
      accountId: opts.accountId,
      // Pausing or cancelling is seen before each claim; what was claimed and not sent goes back to pending.
      keepGoing: async () => (await load())?.status === 'sending',
      claim: async (limit) => {
        const claimed = await claimRecipients(campaign!, limit);
        if (!claimed.length) return claimed;
        // A recipient who unsubscribed from another campaign after the audience was frozen is skipped, not mailed.
        const suppressed = new Set(
          (
            await db
              .select({ address: schema.campaignSuppressions.address })
              .from(schema.campaignSuppressions)
              .where(
                and(
                  eq(schema.campaignSuppressions.accountId, opts.accountId),
                  eq(schema.campaignSuppressions.channel, channel),
                  inArray(
                    schema.campaignSuppressions.address,
                    claimed.map((x) => x.address),
                  ),
                ),
              )
          ).map((x) => x.address),
        );
        return claimed.map((x) => ({ ...x, suppressed: suppressed.has(x.address) }));
      },
      skip: (one) => Boolean(one.suppressed),
      markSkipped: async (ids) => {
        await db.update(r).set({ status: 'skipped' }).where(mine(ids));
      },
      deliver: (one, held) => sender.send(one, held),
      markSent: async (rows) => {
        await db.update(r).set({ status: 'sent', sentAt: new Date() }).where(and(mine(rows.map((x) => x.id)), eq(r.status, 'sending')));
        await bump(rows.length, 0);
      },
      // Held ends' marks (ADR 084 addendum 3): one statement with the counter, literal ids, on the loop's own connection.
      syncMarks: route === 'smtp' ? { connect: connectSentMarks, text: (ids) => sentMarkStatement(opts.accountId, campaign!.id, ids) } : undefined,
      extendClaims: async (ids) => {
        await db.update(r).set({ claimedAt: sql`now()` }).where(and(mine(ids), eq(r.status, 'sending')));
      },
      unmarkSent: async (ids) => {
        const back = await db.update(r).set({ status: 'sending', sentAt: null }).where(and(mine(ids), eq(r.status, 'sent'))).returning({ id: r.id });
        await bump(-back.length, 0);
      },
      isRefusal: sender.isRefusal,
      markRefused: async (one, err) => {
        await db
          .update(r)
          .set({ status: 'failed', bouncedAt: new Date(), error: String(err.message).slice(0, 300) })
          .where(mine([one.id]));
        await bump(0, 1);
        await suppress({ accountId: opts.accountId, campaignId: campaign!.id, address: one.address, reason: 'bounced', recipientId: one.id, channel });
      },
      release: async (ids) => {
        await db
          .update(r)
          .set({ status: 'pending', claimedAt: null })
          .where(and(mine(ids), eq(r.status, 'sending')));
      },
    },
    { rateKey: `campaign:${channel}:${opts.accountId}`, ratePerSecond: ratePerSecond(), lanes: lanes(), claimSize: CLAIM_SIZE, sliceMs: SLICE_MS },
  ).catch((err) => {
    getLogger().warn({ accountId: opts.accountId, campaignId: campaign!.id, err: (err as Error).message }, 'campaign send paused by a transport error');
    throw err;
  });
  if (!stats.exhausted && (await load())?.status === 'sending') {
    await db.transaction((tx) => enqueueInTx(tx, QUEUES.campaignSend, { accountId: opts.accountId, campaignId: opts.campaignId }));
    return { sent: counted.sent, done: false };
  }
  return finishIfDone(campaign);
}

/** The plan flag each kind of sent campaign needs (with `campaigns/enabled`, which planAllows checks too). */
const CAMPAIGN_FLAG: Record<'email' | 'sms' | 'push', FeatureKey> = {
  email: 'campaigns/emailCampaigns',
  sms: 'campaigns/smsCampaigns',
  push: 'campaigns/webPush',
};

/** Why a campaign stopped on a plan without it: the status event's `reason`. */
export const PLAN_STOPPED_REASON = 'plan_feature';

/**
 * A campaign whose plan lost its feature (ADR 157): a scheduled one goes back to draft (nothing was sent), a sending
 * one is paused (the recipients not reached stay pending; resuming, on a plan with the feature, sends to them). The
 * status event carries the reason and the plan's message, and a warning is logged: the campaign never ends as "sent".
 */
async function stopForPlan(campaign: Campaign) {
  const status = campaign.status === 'scheduled' ? 'draft' : 'paused';
  await getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(c)
      .set({ status, updatedAt: new Date(), ...(status === 'draft' ? { scheduledAt: null } : {}) })
      .where(and(eq(c.accountId, campaign.accountId), eq(c.id, campaign.id), eq(c.status, campaign.status)))
      .returning({ id: c.id });
    if (!row) return;
    await emitEvent(tx, {
      accountId: campaign.accountId,
      type: 'campaign_status_changed',
      subjectType: 'campaign',
      subjectId: campaign.id,
      payload: { status, previous: campaign.status, reason: PLAN_STOPPED_REASON, message: FEATURE_DENIED_MESSAGE },
      actor: { type: 'engine' },
    });
  });
  getLogger().warn({ accountId: campaign.accountId, campaignId: campaign.id, status }, 'campaign not sent: the account\'s plan does not include it');
}

async function finishIfDone(campaign: Campaign) {
  const db = getDb();
  return db.transaction(async (tx) => {
    const [left] = await tx.execute(sql`select exists (select 1 from ${r} where account_id = ${campaign.accountId} and campaign_id = ${campaign.id} and status in ('pending', 'sending')) as "left"`);
    if ((left as { left: boolean }).left) return { sent: 0, done: false };
    const [row] = await tx
      .update(c)
      .set({ status: 'sent', finishedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(c.accountId, campaign.accountId), eq(c.id, campaign.id), eq(c.status, 'sending')))
      .returning({ id: c.id });
    if (row) {
      await emitEvent(tx, {
        accountId: campaign.accountId,
        type: 'campaign_status_changed',
        subjectType: 'campaign',
        subjectId: campaign.id,
        payload: { status: 'sent' },
        actor: { type: 'engine' },
      });
    }
    return { sent: 0, done: true };
  });
}

/** "Send a test to yourself": the campaign as a recipient would get it, to the person's own address, untracked. */
export async function sendCampaignTest(opts: { campaign: Campaign; to: string; contact: TemplateContact }) {
  const sender = await senderOf(opts.campaign);
  const mail = await mailFor({ ...opts.campaign, trackClicks: false, trackOpens: false }, sender, { recipientId: 0, address: opts.to, contact: opts.contact });
  await deliver(sender.route, opts.campaign.accountId, { ...mail, subject: `[Test] ${mail.subject}` });
}

/** Adds an address to the account's suppression list (idempotent) and records why, in one transaction. */
export async function suppress(opts: {
  accountId: number;
  campaignId: number | null;
  address: string;
  reason: 'unsubscribed' | 'bounced' | 'complained' | 'stop';
  recipientId?: number;
  channel?: 'email' | 'sms' | 'push';
}) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(schema.campaignSuppressions)
      .values({ accountId: opts.accountId, channel: opts.channel ?? 'email', address: opts.address.toLowerCase(), reason: opts.reason, campaignId: opts.campaignId })
      .onConflictDoNothing()
      .returning();
    if (opts.campaignId && opts.reason === 'bounced') {
      await tx.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId: opts.campaignId, recipientId: opts.recipientId ?? null, kind: 'bounce' });
      await tx.update(c).set({ bouncedCount: sql`${c.bouncedCount} + 1` }).where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.campaignId)));
    }
    if (row) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'campaign_recipient_suppressed',
        subjectType: 'campaign',
        subjectId: opts.campaignId ?? 0,
        payload: { reason: opts.reason, channel: opts.channel ?? 'email' },
        actor: { type: 'system' },
      });
    }
    return Boolean(row);
  });
}
