import { and, asc, eq, sql } from 'drizzle-orm';
import { getDb, type Tx } from '../../../db/client';
import * as schema from '../../../db/schema';
import { emitEvent } from '../events/events.server';
import { recordChange } from '../productivity/shared.server';
import { FieldInputError, isUniqueViolation } from '../productivity/shared.server';
import { GOAL_NAME_TAKEN, toMinor, TRACKER_NAME_TAKEN, urlMatches } from './constants';
import type { GoalValues, SaleTrackerValues } from './schemas';

const g = schema.conversionGoals;
const st = schema.saleTrackers;
type Who = { accountId: number; actorId: number | null };

// ---------------------------------------------------------------------------------------------------------
// Goals and sales trackers (Settings → Conversions)

export function listGoals(opts: { accountId: number }) {
  return getDb().select().from(g).where(eq(g.accountId, opts.accountId)).orderBy(asc(g.name));
}

export async function getGoal(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(g)
    .where(and(eq(g.accountId, opts.accountId), eq(g.id, opts.id)));
  return row;
}

async function unique<T>(field: string, message: string, run: () => Promise<T>) {
  try {
    return await run();
  } catch (err) {
    if (isUniqueViolation(err)) throw new FieldInputError(message, field);
    throw err;
  }
}

export function createGoal(opts: Who & GoalValues) {
  return unique('name', GOAL_NAME_TAKEN, () =>
    getDb().transaction(async (tx) => {
      const [row] = await tx
        .insert(g)
        .values({
          accountId: opts.accountId,
          name: opts.name,
          eventName: opts.eventName,
          kind: opts.kind ?? 'event',
          urlOp: opts.urlOp ?? null,
          urlValue: opts.urlValue ?? null,
          description: opts.description,
          attributionDays: opts.attributionDays,
          active: opts.active,
        })
        .returning();
      await recordChange(tx, {
        ...opts,
        type: 'conversion_goal_created',
        subjectType: 'conversion_goal',
        subjectId: row.id,
        payload: { name: row.name, kind: row.kind, eventName: row.eventName, urlOp: row.urlOp, urlValue: row.urlValue },
      });
      return row;
    }),
  );
}

export function updateGoal(opts: Who & GoalValues & { id: number }) {
  return unique('name', GOAL_NAME_TAKEN, () =>
    getDb().transaction(async (tx) => {
      const [row] = await tx
        .update(g)
        .set({
          name: opts.name,
          eventName: opts.eventName,
          kind: opts.kind ?? 'event',
          urlOp: opts.urlOp ?? null,
          urlValue: opts.urlValue ?? null,
          description: opts.description,
          attributionDays: opts.attributionDays,
          active: opts.active,
          updatedAt: new Date(),
        })
        .where(and(eq(g.accountId, opts.accountId), eq(g.id, opts.id)))
        .returning();
      if (!row) return undefined;
      await recordChange(tx, {
        ...opts,
        type: 'conversion_goal_updated',
        subjectType: 'conversion_goal',
        subjectId: row.id,
        payload: { name: row.name, kind: row.kind, eventName: row.eventName, urlOp: row.urlOp, urlValue: row.urlValue, active: row.active },
      });
      return row;
    }),
  );
}

export function deleteGoal(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(g)
      .where(and(eq(g.accountId, opts.accountId), eq(g.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'conversion_goal_deleted', subjectType: 'conversion_goal', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}

export function listSaleTrackers(opts: { accountId: number }) {
  return getDb().select().from(st).where(eq(st.accountId, opts.accountId)).orderBy(asc(st.name));
}

export async function getSaleTracker(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(st)
    .where(and(eq(st.accountId, opts.accountId), eq(st.id, opts.id)));
  return row;
}

export function createSaleTracker(opts: Who & SaleTrackerValues) {
  return unique('name', TRACKER_NAME_TAKEN, () =>
    getDb().transaction(async (tx) => {
      const [row] = await tx
        .insert(st)
        .values({ accountId: opts.accountId, name: opts.name, currency: opts.currency, attributionDays: opts.attributionDays, active: opts.active })
        .returning();
      await recordChange(tx, {
        ...opts,
        type: 'sale_tracker_created',
        subjectType: 'sale_tracker',
        subjectId: row.id,
        payload: { name: row.name, currency: row.currency },
      });
      return row;
    }),
  );
}

export function updateSaleTracker(opts: Who & SaleTrackerValues & { id: number }) {
  return unique('name', TRACKER_NAME_TAKEN, () =>
    getDb().transaction(async (tx) => {
      const [row] = await tx
        .update(st)
        .set({ name: opts.name, currency: opts.currency, attributionDays: opts.attributionDays, active: opts.active, updatedAt: new Date() })
        .where(and(eq(st.accountId, opts.accountId), eq(st.id, opts.id)))
        .returning();
      if (!row) return undefined;
      await recordChange(tx, {
        ...opts,
        type: 'sale_tracker_updated',
        subjectType: 'sale_tracker',
        subjectId: row.id,
        payload: { name: row.name, currency: row.currency, active: row.active },
      });
      return row;
    }),
  );
}

export function deleteSaleTracker(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(st)
      .where(and(eq(st.accountId, opts.accountId), eq(st.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'sale_tracker_deleted', subjectType: 'sale_tracker', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}

/** Conversions and sales per goal and tracker, for the settings lists. */
export async function conversionCounts(opts: { accountId: number }) {
  const [goals, trackers] = await Promise.all([
    getDb().execute<{ id: number; n: number }>(
      sql`select goal_id as id, count(*)::int as n from goal_conversions where account_id = ${opts.accountId} group by 1`,
    ),
    getDb().execute<{ id: number; n: number }>(
      sql`select sale_tracker_id as id, count(*)::int as n from sales where account_id = ${opts.accountId} and sale_tracker_id is not null group by 1`,
    ),
  ]);
  return { goals: new Map(goals.map((r) => [Number(r.id), Number(r.n)])), trackers: new Map(trackers.map((r) => [Number(r.id), Number(r.n)])) };
}

// ---------------------------------------------------------------------------------------------------------
// Recording (ADR 104, 105)

/**
 * The conversation a conversion is attributed to: the contact's latest conversation in which an agent replied
 * within `days` before the conversion ("after talking to the team"). Null when there is none.
 */
export async function attributedConversation(tx: Tx, opts: { accountId: number; contactId: number | null | undefined; at: Date; days: number }) {
  if (!opts.contactId) return null;
  const since = new Date(opts.at.getTime() - opts.days * 86_400_000);
  const [row] = await tx.execute<{ id: number }>(sql`
    select c.id from conversations c
    where c.account_id = ${opts.accountId} and c.contact_id = ${opts.contactId}
      and exists (
        select 1 from messages m where m.account_id = ${opts.accountId} and m.conversation_id = c.id and m.kind = 'outgoing' and m.sender_user_id is not null
          and m.created_at >= ${since.toISOString()}::timestamptz and m.created_at <= ${opts.at.toISOString()}::timestamptz
      )
    order by c.id desc limit 1`);
  return row ? Number(row.id) : null;
}

export type SaleInput = {
  accountId: number;
  amountMinor: number;
  currency: string;
  source: 'tracker' | 'shopify' | 'bigcommerce' | 'api';
  externalId?: string | null;
  contactId?: number | null;
  saleTrackerId?: number | null;
  occurredAt?: Date;
  /** Days back to look for the conversation the sale is attributed to (the tracker's setting; 30 by default). */
  attributionDays?: number;
};

/**
 * Records a sale and its `sale_recorded` event in one transaction (the sales contract of this round): once per
 * (account, source, externalId): a second call with the same order changes nothing and returns `created: false`.
 */
export async function recordSale(input: SaleInput, db?: Tx) {
  const run = async (tx: Tx) => {
    const at = input.occurredAt ?? new Date();
    const externalId = input.externalId?.trim() || `auto-${crypto.randomUUID()}`;
    const currency = input.currency.toUpperCase();
    const conversationId = await attributedConversation(tx, { accountId: input.accountId, contactId: input.contactId, at, days: input.attributionDays ?? 30 });
    const [row] = await tx
      .insert(schema.sales)
      .values({
        accountId: input.accountId,
        source: input.source,
        externalId,
        amountMinor: input.amountMinor,
        currency,
        contactId: input.contactId ?? null,
        saleTrackerId: input.saleTrackerId ?? null,
        conversationId,
        occurredAt: at,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return { created: false as const, saleId: null };
    await emitEvent(tx, {
      accountId: input.accountId,
      type: 'sale_recorded',
      subjectType: 'sale',
      subjectId: row.id,
      payload: {
        amountMinor: row.amountMinor,
        currency,
        source: input.source,
        externalId: input.externalId?.trim() || undefined,
        contactId: row.contactId,
        saleTrackerId: row.saleTrackerId,
        conversationId,
      },
      actor: input.contactId ? { type: 'contact', id: input.contactId } : { type: 'system' },
    });
    return { created: true as const, saleId: row.id };
  };
  return db ? run(db) : getDb().transaction(run);
}

/**
 * The goals naming `eventName`, reached by the contact: one `goal_conversions` row and one `goal_reached` event
 * per goal and contact (a second track() of the same event adds nothing).
 */
async function reachGoals(tx: Tx, opts: { accountId: number; contactId: number; eventName: string; at: Date }) {
  const goals = await tx
    .select()
    .from(g)
    .where(and(eq(g.accountId, opts.accountId), eq(g.kind, 'event'), eq(g.eventName, opts.eventName), eq(g.active, true)));
  return reach(tx, { ...opts, goals, payload: { eventName: opts.eventName } });
}

/** One `goal_conversions` row and one `goal_reached` event per goal and contact; the goals already reached add nothing. */
async function reach(
  tx: Tx,
  opts: { accountId: number; contactId: number; at: Date; goals: (typeof g.$inferSelect)[]; payload: Record<string, unknown>; causedByEventId?: number },
) {
  const reached: number[] = [];
  for (const goal of opts.goals) {
    const conversationId = await attributedConversation(tx, { accountId: opts.accountId, contactId: opts.contactId, at: opts.at, days: goal.attributionDays });
    const [row] = await tx
      .insert(schema.goalConversions)
      .values({ accountId: opts.accountId, goalId: goal.id, contactId: opts.contactId, conversationId, occurredAt: opts.at })
      .onConflictDoNothing()
      .returning({ id: schema.goalConversions.id });
    if (!row) continue;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'goal_reached',
      subjectType: 'conversion_goal',
      subjectId: goal.id,
      payload: { goalId: goal.id, contactId: opts.contactId, conversationId, ...opts.payload },
      actor: { type: 'contact', id: opts.contactId },
      causedByEventId: opts.causedByEventId ?? null,
    });
    reached.push(goal.id);
  }
  return reached;
}

/**
 * URL goals (ADR 120): a known contact's page view (`page_viewed`, written by the messenger) reaches the active URL
 * goals its URL matches, once per goal and contact, attributed as of the view's time. Run by the engine, off the
 * messenger's page-view path; a view before the visitor became a contact reaches nothing.
 */
export async function reachUrlGoals(opts: { accountId: number; contactId: number | null; url: string; at: Date; pageViewEventId?: number }) {
  if (!opts.contactId || !opts.url) return [];
  const goals = await getDb()
    .select()
    .from(g)
    .where(and(eq(g.accountId, opts.accountId), eq(g.kind, 'url'), eq(g.active, true)));
  const matching = goals.filter((goal) => goal.urlOp && goal.urlValue && urlMatches({ op: goal.urlOp, value: goal.urlValue }, opts.url));
  if (matching.length === 0) return [];
  return getDb().transaction((tx) =>
    reach(tx, {
      accountId: opts.accountId,
      contactId: opts.contactId!,
      at: opts.at,
      goals: matching,
      payload: { url: opts.url.slice(0, 2000) },
      causedByEventId: opts.pageViewEventId,
    }),
  );
}

export class TrackInputError extends Error {}

/**
 * The messenger's `Parley.track(name, props)` (ADR 105): `sale` records a sale through the account's sales tracker
 * (the one named by `props.tracker`, else its first active one) when an amount is given; every name reaches the
 * active goals that name it. Sale and goals commit together.
 */
export async function trackVisitorEvent(opts: {
  accountId: number;
  contactId: number | null;
  name: string;
  props: { amount?: number; currency?: string; orderId?: string; tracker?: number };
  now?: Date;
}) {
  const at = opts.now ?? new Date();
  return getDb().transaction(async (tx) => {
    let sale: { created: boolean; saleId: number | null } | null = null;
    if (opts.name === 'sale') {
      if (opts.props.amount === undefined) throw new TrackInputError('A sale needs an amount');
      const [tracker] = await tx
        .select()
        .from(st)
        .where(and(eq(st.accountId, opts.accountId), eq(st.active, true), opts.props.tracker ? eq(st.id, opts.props.tracker) : undefined))
        .orderBy(asc(st.id))
        .limit(1);
      if (!tracker) throw new TrackInputError('This site has no active sales tracker');
      const currency = (opts.props.currency ?? tracker.currency).toUpperCase();
      sale = await recordSale(
        {
          accountId: opts.accountId,
          amountMinor: toMinor(opts.props.amount, currency),
          currency,
          source: 'tracker',
          externalId: opts.props.orderId ?? null,
          contactId: opts.contactId,
          saleTrackerId: tracker.id,
          occurredAt: at,
          attributionDays: tracker.attributionDays,
        },
        tx,
      );
    }
    // A goal counts contacts: a visitor the widget has not tied to a contact yet reaches none.
    const goals = opts.contactId ? await reachGoals(tx, { accountId: opts.accountId, contactId: opts.contactId, eventName: opts.name, at }) : [];
    return { sale, goals };
  });
}
