import { TZDate } from '@date-fns/tz';
import { and, asc, count, desc, eq, gte, ilike, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { plainTextOf } from '../knowledge-base/sanitize.server';
import { cleanQuery, FieldInputError, likePattern, paging } from '../productivity/shared.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { CAMPAIGN_KINDS, CAMPAIGN_STATUSES, EDITABLE_STATUSES, TRANSITIONS, type CampaignKind, type CampaignStatus, type CampaignTransition } from './constants';
import { cleanCampaignHtml } from './email-layout.server';
import { getCampaignTemplate, keptDesign } from './templates.server';

export type Campaign = typeof schema.campaigns.$inferSelect;

const c = schema.campaigns;

/** A campaign change the person cannot make (a status that does not allow it): a 409 with this message. */
export class CampaignStateError extends Error {}

export async function listCampaigns(opts: {
  accountId: number;
  kind?: CampaignKind;
  status?: CampaignStatus;
  from?: Date;
  to?: Date;
  q?: string | null;
  page?: number;
}) {
  const { page, pageSize, offset } = paging(opts);
  const query = cleanQuery(opts.q);
  const where = and(
    eq(c.accountId, opts.accountId),
    opts.kind ? eq(c.kind, opts.kind) : undefined,
    opts.status ? eq(c.status, opts.status) : undefined,
    opts.from ? gte(c.createdAt, opts.from) : undefined,
    opts.to ? lt(c.createdAt, opts.to) : undefined,
    query ? ilike(c.name, likePattern(query)) : undefined,
  );
  const db = getDb();
  const rows = await db
    .select({
      id: c.id,
      kind: c.kind,
      name: c.name,
      status: c.status,
      scheduledAt: c.scheduledAt,
      startedAt: c.startedAt,
      createdAt: c.createdAt,
      recipientCount: c.recipientCount,
      sentCount: c.sentCount,
      openedCount: c.openedCount,
      clickedCount: c.clickedCount,
      repliedCount: c.repliedCount,
      segmentName: schema.segments.name,
    })
    .from(c)
    .leftJoin(schema.segments, and(eq(schema.segments.id, c.segmentId), eq(schema.segments.accountId, opts.accountId)))
    .where(where)
    .orderBy(desc(c.id))
    .limit(pageSize)
    .offset(offset);
  const [{ total }] = await db.select({ total: count() }).from(c).where(where);
  return { rows, total, page, pageSize };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The one loader of a campaign list (all campaigns, or one kind's list at campaigns/{kind}): reads the search and the
 * getFilters (kind, status, a created-date range, 50 a page) from the address. A fixed kind overrides the address's.
 */
export async function loadCampaignList(opts: { accountId: number; searchParams: URLSearchParams; kind?: CampaignKind }) {
  const p = opts.searchParams;
  const q = (p.get('q') ?? '').trim().slice(0, 100);
  const kind = opts.kind ?? p.get('kind');
  const status = p.get('status');
  const from = p.get('from') ?? '';
  const to = p.get('to') ?? '';
  const filters = {
    kind: (CAMPAIGN_KINDS as readonly string[]).includes(kind ?? '') ? (kind as CampaignKind) : undefined,
    status: (CAMPAIGN_STATUSES as readonly string[]).includes(status ?? '') ? (status as CampaignStatus) : undefined,
    from: DATE.test(from) ? from : undefined,
    to: DATE.test(to) ? to : undefined,
  };
  const pageParam = Number(p.get('page'));
  const list = await listCampaigns({
    accountId: opts.accountId,
    q,
    kind: filters.kind,
    status: filters.status,
    from: filters.from ? new Date(`${filters.from}T00:00:00Z`) : undefined,
    to: filters.to ? new Date(new Date(`${filters.to}T00:00:00Z`).getTime() + 86_400_000) : undefined,
    page: Number.isInteger(pageParam) && pageParam > 1 ? pageParam : 1,
  });
  return { q, filters, list, fixedKind: opts.kind ?? null };
}

export async function getCampaign(opts: { accountId: number; id: number; kind?: CampaignKind }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id), opts.kind ? eq(c.kind, opts.kind) : undefined));
  return row;
}

/** The account's email inboxes with an address: the senders an email campaign may use. */
export async function listEmailSenders(opts: { accountId: number }) {
  const i = schema.inboxes;
  return getDb()
    .select({ id: i.id, name: i.name, email: i.email })
    .from(i)
    .where(and(eq(i.accountId, opts.accountId), eq(i.channelType, 'email'), isNotNull(i.email)))
    .orderBy(asc(i.id));
}

export async function listContactSegments(opts: { accountId: number }) {
  const s = schema.segments;
  return getDb()
    .select({ id: s.id, name: s.name, isStatic: s.isStatic })
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.kind, 'contact')))
    .orderBy(sql`lower(${s.name})`, asc(s.id));
}

export type EmailCampaignFields = {
  name: string;
  segmentId: number;
  inboxId: number;
  templateId?: number;
  subject: string;
  bodyHtml?: string;
  textDesign?: string;
  trackOpens: boolean;
  trackClicks: boolean;
};

/** The account's SMS inboxes (Twilio or custom): what an SMS campaign may be sent through. */
export async function listSmsSenders(opts: { accountId: number }) {
  const i = schema.inboxes;
  return getDb()
    .select({ id: i.id, name: i.name })
    .from(i)
    .where(and(eq(i.accountId, opts.accountId), eq(i.channelType, 'sms')))
    .orderBy(asc(i.id));
}

export type SmsCampaignFields = { name: string; segmentId: number; inboxId: number; body: string };

async function resolveSmsFields(tx: Tx, accountId: number, f: SmsCampaignFields) {
  const segmentId = await checkSegment(tx, accountId, f.segmentId);
  const [inbox] = await tx
    .select({ id: schema.inboxes.id })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, f.inboxId), eq(schema.inboxes.channelType, 'sms')));
  if (!inbox) throw new FieldInputError('SMS inbox must be specified', 'inboxId');
  return { name: f.name.trim(), segmentId, inboxId: inbox.id, bodyText: f.body.trim(), bodyHtml: '', subject: '', trackOpens: false, trackClicks: false };
}

export async function createSmsCampaign(opts: { accountId: number; actorId: number } & SmsCampaignFields) {
  return getDb().transaction(async (tx) => insertCampaign(tx, opts, 'sms', await resolveSmsFields(tx, opts.accountId, opts)));
}

export async function updateSmsCampaign(opts: { accountId: number; actorId: number; id: number } & SmsCampaignFields) {
  return getDb().transaction(async (tx) => rewriteCampaign(tx, opts, 'sms', () => resolveSmsFields(tx, opts.accountId, opts)));
}

/** The account's web (messenger) inboxes and its agents: where a message campaign shows and who it speaks as. */
export async function listMessageOptions(opts: { accountId: number }) {
  const i = schema.inboxes;
  const u = schema.users;
  const [inboxes, agents] = await Promise.all([
    getDb().select({ id: i.id, name: i.name }).from(i).where(and(eq(i.accountId, opts.accountId), eq(i.channelType, 'web'))).orderBy(asc(i.id)),
    getDb()
      .select({ id: u.id, firstName: u.firstName, lastName: u.lastName })
      .from(u)
      .where(and(eq(u.accountId, opts.accountId), eq(u.status, 'active')))
      .orderBy(asc(u.firstName), asc(u.id)),
  ]);
  return { inboxes, agents: agents.map((a) => ({ id: a.id, name: `${a.firstName} ${a.lastName}`.trim() })) };
}

export type MessageCampaignFields = {
  name: string;
  inboxId: number;
  segmentId?: number;
  senderUserId: number;
  body: string;
  pages: string[];
  pageMatch: 'exact' | 'contain' | 'start' | 'end';
  delaySeconds: number;
  visitor: 'any' | 'new' | 'returning';
  businessHoursOnly: boolean;
};

async function resolveMessageFields(tx: Tx, accountId: number, f: MessageCampaignFields) {
  const segmentId = f.segmentId ? await checkSegment(tx, accountId, f.segmentId) : null;
  const [inbox] = await tx
    .select({ id: schema.inboxes.id })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, f.inboxId), eq(schema.inboxes.channelType, 'web')));
  if (!inbox) throw new FieldInputError('Messenger must be specified', 'inboxId');
  const [sender] = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, f.senderUserId)));
  if (!sender) throw new FieldInputError('Sender must be specified', 'senderUserId');
  return {
    name: f.name.trim(),
    segmentId,
    inboxId: inbox.id,
    bodyText: f.body.trim(),
    bodyHtml: '',
    subject: '',
    trackOpens: false,
    trackClicks: false,
    chat: {
      senderUserId: sender.id,
      pages: f.pages.map((link) => ({ link, linkType: f.pageMatch })),
      delaySeconds: f.delaySeconds,
      visitor: f.visitor,
      businessHoursOnly: f.businessHoursOnly,
    },
  };
}

export async function createMessageCampaign(opts: { accountId: number; actorId: number } & MessageCampaignFields) {
  return getDb().transaction(async (tx) => insertCampaign(tx, opts, 'message', await resolveMessageFields(tx, opts.accountId, opts)));
}

export async function updateMessageCampaign(opts: { accountId: number; actorId: number; id: number } & MessageCampaignFields) {
  return getDb().transaction(async (tx) => rewriteCampaign(tx, opts, 'message', () => resolveMessageFields(tx, opts.accountId, opts)));
}

export type PushCampaignFields = { name: string; pushSegmentId: number; title: string; body: string; url: string; icon?: string };

/** A push campaign (ADR 083): one of the account's push segments; the title is kept as the subject, the body as text. */
async function resolvePushFields(tx: Tx, accountId: number, f: PushCampaignFields) {
  const [segment] = await tx
    .select({ id: schema.pushSegments.id })
    .from(schema.pushSegments)
    .where(and(eq(schema.pushSegments.accountId, accountId), eq(schema.pushSegments.id, f.pushSegmentId)));
  if (!segment) throw new FieldInputError('Push segment must be specified', 'pushSegmentId');
  return {
    name: f.name.trim(),
    pushSegmentId: segment.id,
    subject: f.title.trim(),
    bodyText: f.body.trim(),
    bodyHtml: '',
    trackOpens: false,
    trackClicks: true,
    push: { url: f.url.trim(), icon: f.icon?.trim() || null },
  };
}

export async function createPushCampaign(opts: { accountId: number; actorId: number } & PushCampaignFields) {
  return getDb().transaction(async (tx) => insertCampaign(tx, opts, 'push', await resolvePushFields(tx, opts.accountId, opts)));
}

export async function updatePushCampaign(opts: { accountId: number; actorId: number; id: number } & PushCampaignFields) {
  return getDb().transaction(async (tx) => rewriteCampaign(tx, opts, 'push', () => resolvePushFields(tx, opts.accountId, opts)));
}

type CampaignFields = Omit<typeof c.$inferInsert, 'accountId' | 'kind' | 'createdById'>;

/** A new campaign of a kind, with its campaign_created event, in the caller's transaction. */
async function insertCampaign(tx: Tx, opts: { accountId: number; actorId: number }, kind: CampaignKind, fields: CampaignFields) {
  const [row] = await tx
    .insert(c)
    .values({ accountId: opts.accountId, kind, createdById: opts.actorId, ...fields })
    .returning();
  await emitEvent(tx, { accountId: opts.accountId, type: 'campaign_created', subjectType: 'campaign', subjectId: row.id, payload: { kind, name: row.name }, actor: { type: 'user', id: opts.actorId } });
  return row;
}

/** Saves an editable campaign's fields (draft or scheduled only), with its campaign_updated event. */
async function rewriteCampaign(tx: Tx, opts: { accountId: number; actorId: number; id: number }, kind: CampaignKind, resolve: () => Promise<CampaignFields>) {
  const before = await lockCampaign(tx, opts.accountId, opts.id, kind);
  if (!before) return undefined;
  if (!EDITABLE_STATUSES.includes(before.status)) throw new CampaignStateError(`A ${before.status} campaign cannot be edited`);
  const fields = await resolve();
  const [row] = await tx
    .update(c)
    .set({ ...fields, updatedAt: new Date() })
    .where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)))
    .returning();
  await emitEvent(tx, { accountId: opts.accountId, type: 'campaign_updated', subjectType: 'campaign', subjectId: row.id, payload: { kind, name: row.name }, actor: { type: 'user', id: opts.actorId } });
  return row;
}

/** The segment must be one of the account's contact segments. */
async function checkSegment(tx: Tx, accountId: number, segmentId: number) {
  const [segment] = await tx
    .select({ id: schema.segments.id })
    .from(schema.segments)
    .where(and(eq(schema.segments.accountId, accountId), eq(schema.segments.id, segmentId), eq(schema.segments.kind, 'contact')));
  if (!segment) throw new FieldInputError('Segment must be specified', 'segmentId');
  return segment.id;
}

/** Checks that the segment, sender and template are the account's own; fills the body from the template when empty. */
async function resolveEmailFields(tx: Tx, accountId: number, f: EmailCampaignFields) {
  const segmentId = await checkSegment(tx, accountId, f.segmentId);
  const [inbox] = await tx
    .select({ id: schema.inboxes.id })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, f.inboxId), eq(schema.inboxes.channelType, 'email'), isNotNull(schema.inboxes.email)));
  if (!inbox) throw new FieldInputError('Sender must be specified', 'inboxId');
  let bodyHtml = cleanCampaignHtml(f.bodyHtml ?? '');
  // The designer's blocks are kept as templates keep theirs (ADR 095): only while the html is still their rendering.
  let textDesign = keptDesign(f.textDesign, bodyHtml);
  if (f.templateId) {
    const template = await getCampaignTemplate({ accountId, id: f.templateId }, tx);
    if (!template) throw new FieldInputError('Choose a template', 'templateId');
    if (!bodyHtml) {
      bodyHtml = template.bodyHtml;
      textDesign = template.textDesign;
    }
  }
  if (!bodyHtml) throw new FieldInputError('Write a message or choose a template', 'bodyHtml');
  return {
    name: f.name.trim(),
    segmentId,
    inboxId: inbox.id,
    templateId: f.templateId ?? null,
    subject: f.subject.trim(),
    bodyHtml,
    bodyText: plainTextOf(bodyHtml),
    textDesign,
    trackOpens: f.trackOpens,
    trackClicks: f.trackClicks,
  };
}

export async function createEmailCampaign(opts: { accountId: number; actorId: number } & EmailCampaignFields) {
  return getDb().transaction(async (tx) => insertCampaign(tx, opts, 'email', await resolveEmailFields(tx, opts.accountId, opts)));
}

export async function updateEmailCampaign(opts: { accountId: number; actorId: number; id: number } & EmailCampaignFields) {
  return getDb().transaction(async (tx) => rewriteCampaign(tx, opts, 'email', () => resolveEmailFields(tx, opts.accountId, opts)));
}

async function lockCampaign(tx: Tx, accountId: number, id: number, kind?: CampaignKind) {
  const [row] = await tx
    .select()
    .from(c)
    .where(and(eq(c.accountId, accountId), eq(c.id, id), kind ? eq(c.kind, kind) : undefined))
    .for('update');
  return row;
}

/** A local date-time typed in `timeZone` (2026-11-25T18:30) as an instant. */
export function zonedInstant(local: string, timeZone: string) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const d = new TZDate(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), timeZone);
  return Number.isNaN(d.getTime()) ? null : new Date(d.getTime());
}

/**
 * Schedules a draft (`at` in the future) or starts it now (no `at`). Either way the send is one job of the engine's
 * `campaigns.send` queue, queued in this transaction; a scheduled one freezes its audience when it starts.
 */
export async function scheduleCampaign(opts: { accountId: number; actorId: number; id: number; at?: Date; timeZone?: string }) {
  return getDb().transaction(async (tx) => {
    const before = await lockCampaign(tx, opts.accountId, opts.id);
    if (!before) return undefined;
    if (!(TRANSITIONS.schedule as readonly string[]).includes(before.status)) throw new CampaignStateError(`A ${before.status} campaign cannot be scheduled`);
    if (before.kind === 'push') {
      if (!before.pushSegmentId) throw new CampaignStateError('Choose a push segment before sending');
    } else {
      if (!before.segmentId && before.kind !== 'message') throw new CampaignStateError('Choose a segment before sending');
      if (!before.inboxId) throw new CampaignStateError('Choose a sender before sending');
    }
    const now = new Date();
    const at = opts.at && opts.at.getTime() > now.getTime() ? opts.at : now;
    // A message campaign has no send: it is live in the messenger from its time on (status sending, ADR 082), and
    // a scheduled one counts as live once its time has come, so no job is queued for it.
    const live = before.kind === 'message' && at === now;
    const [row] = await tx
      .update(c)
      .set({ status: live ? 'sending' : 'scheduled', scheduledAt: at, timeZone: opts.timeZone ?? null, updatedAt: now, ...(live ? { startedAt: now } : {}) })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)))
      .returning();
    if (before.kind !== 'message') await enqueueInTx(tx, QUEUES.campaignSend, { accountId: opts.accountId, campaignId: row.id }, { startAfter: at });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'campaign_status_changed',
      subjectType: 'campaign',
      subjectId: row.id,
      payload: { status: row.status, scheduledAt: at.toISOString() },
      actor: { type: 'user', id: opts.actorId },
    });
    return row;
  });
}

const NEXT_STATUS: Record<Exclude<CampaignTransition, 'schedule'>, CampaignStatus> = {
  unschedule: 'draft',
  pause: 'paused',
  resume: 'sending',
  cancel: 'cancelled',
};

/** Pause, resume, cancel or unschedule (the allowed changes are TRANSITIONS; anything else is a CampaignStateError). */
export async function changeCampaignStatus(opts: { accountId: number; actorId: number; id: number; transition: Exclude<CampaignTransition, 'schedule'> }) {
  return getDb().transaction(async (tx) => {
    const before = await lockCampaign(tx, opts.accountId, opts.id);
    if (!before) return undefined;
    const allowed = TRANSITIONS[opts.transition] as readonly string[];
    if (!allowed.includes(before.status)) throw new CampaignStateError(`A ${before.status} campaign cannot be ${NEXT_STATUS[opts.transition] === 'sending' ? 'resumed' : NEXT_STATUS[opts.transition]}`);
    const status = NEXT_STATUS[opts.transition];
    const [row] = await tx
      .update(c)
      .set({ status, updatedAt: new Date(), ...(status === 'draft' ? { scheduledAt: null } : {}), ...(status === 'cancelled' ? { finishedAt: new Date() } : {}) })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)))
      .returning();
    // Resuming queues the sender again; the recipients it had not reached are still pending.
    if (status === 'sending' && before.kind !== 'message') await enqueueInTx(tx, QUEUES.campaignSend, { accountId: opts.accountId, campaignId: row.id });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'campaign_status_changed',
      subjectType: 'campaign',
      subjectId: row.id,
      payload: { status, previous: before.status },
      actor: { type: 'user', id: opts.actorId },
    });
    return row;
  });
}

/** Deletes a campaign that is not sending (pause or cancel it first). */
export async function deleteCampaign(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const before = await lockCampaign(tx, opts.accountId, opts.id);
    if (!before) return false;
    if (before.status === 'sending') throw new CampaignStateError('A sending campaign cannot be deleted: pause or cancel it first');
    await tx.delete(c).where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'campaign_deleted',
      subjectType: 'campaign',
      subjectId: before.id,
      payload: { kind: before.kind, name: before.name },
      actor: { type: 'user', id: opts.actorId },
    });
    return true;
  });
}

/** What a campaign did: the counters, clicks per link, and events per day (the analytics pages read the same rows). */
export async function campaignReport(opts: { accountId: number; id: number }) {
  const e = schema.campaignEvents;
  const db = getDb();
  const [links, days] = await Promise.all([
    db
      .select({ url: e.url, clicks: count() })
      .from(e)
      .where(and(eq(e.accountId, opts.accountId), eq(e.campaignId, opts.id), eq(e.kind, 'click')))
      .groupBy(e.url)
      .orderBy(desc(count()))
      .limit(50),
    db
      .select({ day: sql<string>`to_char(date_trunc('day', ${e.createdAt}), 'YYYY-MM-DD')`, kind: e.kind, n: count() })
      .from(e)
      .where(and(eq(e.accountId, opts.accountId), eq(e.campaignId, opts.id)))
      .groupBy(sql`1`, e.kind)
      .orderBy(sql`1`),
  ]);
  return { links: links.map((l) => ({ url: l.url ?? '', clicks: l.clicks })), days };
}

/** The recipients of campaigns of the account, for tests and reports (never crosses accounts). */
export async function countRecipients(opts: { accountId: number; campaignId: number; status?: string[] }) {
  const r = schema.campaignRecipients;
  const [row] = await getDb()
    .select({ n: count() })
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), eq(r.campaignId, opts.campaignId), opts.status ? inArray(r.status, opts.status as ('sent' | 'pending')[]) : undefined));
  return row.n;
}
