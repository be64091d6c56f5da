import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { publishToAccount } from '../../utils/live.server';

/** A visitor is "on the site right now" when their page was seen within this window (the widget pings more often). */
export const LIVE_WINDOW_SECONDS = 120;
/** Visits of one visitor closer together than this are one stay on the site (time on site counts from its first page). */
const STAY_GAP_MINUTES = 30;
const MAX_LIVE_VISITORS = 500;

export type RecordPageViewInput = {
  accountId: number;
  visitorId: string;
  url: string;
  title?: string | null;
  referrer?: string | null;
  contactId?: number | null;
  userAgent?: string | null;
  country?: string | null;
};

function clip(value: string | null | undefined, max: number) {
  const v = value?.trim();
  return v ? v.slice(0, max) : null;
}

/**
 * What the messenger widget reports for a visitor: a new page starts a new row (with a `page_viewed` event and a
 * live-view update); the same page again only touches its row, so that pings are cheap and do not flood the
 * engine. A contact id is kept only when it is the account's own contact.
 */
export async function recordPageView(input: RecordPageViewInput) {
  const visitorId = clip(input.visitorId, 100);
  const url = clip(input.url, 2000);
  if (!visitorId || !url) throw new Error('A page view needs a visitor id and a url');
  return getDb().transaction(async (tx) => {
    let contactId: number | null = null;
    if (input.contactId) {
      const [own] = await tx
        .select({ id: schema.contacts.id })
        .from(schema.contacts)
        .where(and(eq(schema.contacts.accountId, input.accountId), eq(schema.contacts.id, input.contactId)));
      contactId = own?.id ?? null;
    }
    const pv = schema.pageViews;
    const [current] = await tx
      .select({ id: pv.id, url: pv.url, contactId: pv.contactId })
      .from(pv)
      .where(and(eq(pv.accountId, input.accountId), eq(pv.visitorId, visitorId), sql`${pv.lastSeenAt} > now() - make_interval(mins => ${STAY_GAP_MINUTES})`))
      .orderBy(sql`${pv.lastSeenAt} desc`, sql`${pv.id} desc`)
      .limit(1);
    if (current && current.url === url) {
      await tx
        .update(pv)
        .set({ lastSeenAt: sql`now()`, contactId: contactId ?? current.contactId })
        .where(and(eq(pv.accountId, input.accountId), eq(pv.id, current.id)));
      // Becoming known is worth telling the live view; a plain ping is not.
      if (contactId && contactId !== current.contactId) await publishToAccount(input.accountId, { type: 'liveview.updated' }, { tx });
      return { id: current.id, newPage: false };
    }
    const [row] = await tx
      .insert(pv)
      .values({
        accountId: input.accountId,
        visitorId,
        url,
        title: clip(input.title, 500),
        referrer: clip(input.referrer, 2000),
        contactId: contactId ?? current?.contactId ?? null,
        userAgent: clip(input.userAgent, 500),
        country: clip(input.country, 100),
      })
      .returning({ id: pv.id, contactId: pv.contactId });
    if (row.contactId) {
      await tx
        .update(schema.contacts)
        .set({ lastSeenAt: sql`now()`, lastInteractionAt: sql`now()` })
        .where(and(eq(schema.contacts.accountId, input.accountId), eq(schema.contacts.id, row.contactId)));
    }
    await emitEvent(tx, {
      accountId: input.accountId,
      type: 'page_viewed',
      subjectType: 'page_view',
      subjectId: row.id,
      payload: { visitorId, url, referrer: clip(input.referrer, 2000), contactId: row.contactId },
      actor: row.contactId ? { type: 'contact', id: row.contactId } : { type: 'system' },
    });
    await publishToAccount(input.accountId, { type: 'liveview.updated' }, { tx });
    return { id: row.id, newPage: true };
  });
}

export type LiveVisitor = {
  visitorId: string;
  url: string;
  title: string | null;
  referrer: string | null;
  country: string | null;
  lastSeenAt: Date;
  arrivedAt: Date;
  secondsOnSite: number;
  contact: { id: number; name: string; email: string | null } | null;
};

/**
 * Visitors seen within the live window, one row per visitor with their current page, the referrer that brought
 * them, when their stay began and the contact when known; most recently active first.
 */
export async function listLiveVisitors(opts: { accountId: number; windowSeconds?: number }): Promise<LiveVisitor[]> {
  const windowSeconds = opts.windowSeconds ?? LIVE_WINDOW_SECONDS;
  const rows = await getDb().execute<{
    visitor_id: string;
    url: string;
    title: string | null;
    country: string | null;
    last_seen_at: string;
    arrived_at: string;
    referrer: string | null;
    seconds_on_site: number;
    contact_id: number | null;
    first_name: string | null;
    last_name: string | null;
    email: string | null;
  }>(sql`
    with current as (
      select distinct on (visitor_id) id, visitor_id, url, title, country, contact_id, last_seen_at
      from page_views
      where account_id = ${opts.accountId} and last_seen_at > now() - make_interval(secs => ${windowSeconds})
      order by visitor_id, last_seen_at desc, id desc
    )
    select cur.visitor_id, cur.url, cur.title, cur.country, cur.last_seen_at, stay.arrived_at, stay.referrer,
           extract(epoch from cur.last_seen_at - stay.arrived_at)::int as seconds_on_site,
           k.id as contact_id, k.first_name, k.last_name, k.email
    from current cur
    cross join lateral (
      select first.started_at as arrived_at, first.referrer
      from page_views first
      where first.account_id = ${opts.accountId} and first.visitor_id = cur.visitor_id
        and first.last_seen_at > cur.last_seen_at - make_interval(mins => ${STAY_GAP_MINUTES})
      order by first.started_at asc, first.id asc
      limit 1
    ) stay
    left join contacts k on k.id = cur.contact_id and k.account_id = ${opts.accountId}
    order by cur.last_seen_at desc
    limit ${MAX_LIVE_VISITORS}
  `);
  return rows.map((r) => ({
    visitorId: r.visitor_id,
    url: r.url,
    title: r.title,
    referrer: r.referrer,
    country: r.country,
    lastSeenAt: new Date(r.last_seen_at),
    arrivedAt: new Date(r.arrived_at),
    secondsOnSite: Math.max(0, Number(r.seconds_on_site)),
    contact: r.contact_id
      ? { id: r.contact_id, name: `${r.first_name ?? ''} ${r.last_name ?? ''}`.trim() || (r.email ?? `#${r.contact_id}`), email: r.email }
      : null,
  }));
}
