import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { settingsEditorAction } from '../productivity/editor-action.server';
import { readEditorParam } from '../../utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '../../utils/session.server';
import { createGoal, createSaleTracker, deleteGoal, deleteSaleTracker, getGoal, getSaleTracker, updateGoal, updateSaleTracker } from './conversions.server';
import { GoalSchema, SaleTrackerSchema } from './schemas';

/**
 * The one editor behind Settings → Conversions' goals/{add,goalId} and sales-tracker/{add,saleId} routes (ADR 104,
 * 120): guards first (the plan flag, then manage_messenger_customization to change), `add` creates, an id edits.
 */
export type ConversionKind = 'goal' | 'tracker';

const KINDS = {
  goal: {
    feature: 'chatMessenger/conversionGoals',
    param: 'goalId',
    list: '/settings/goals',
    toasts: { created: 'Goal Created', updated: 'Goal Updated', deleted: 'Goal Deleted' },
  },
  tracker: {
    feature: 'chatMessenger/salesTracker',
    param: 'saleId',
    list: '/settings/sales-tracker',
    toasts: { created: 'Sales Tracker Created', updated: 'Sales Tracker Updated', deleted: 'Sales Tracker Deleted' },
  },
} as const;

const readParam = (p: string | undefined) => readEditorParam(p === 'add' ? 'new' : p === 'new' ? 'x' : p);

export async function conversionEditorLoader(kind: ConversionKind, { request, params }: LoaderFunctionArgs) {
  const k = KINDS[kind];
  const ctx = await requireUser(request);
  await requireFeature(request, k.feature, ctx);
  const id = readParam(params[k.param]);
  const locked = !can(ctx, 'manage_messenger_customization');
  if (kind === 'goal') {
    const goal = id === 'new' ? null : await getGoal({ accountId: ctx.account.id, id });
    if (goal === undefined) throw new Response('Not Found', { status: 404 });
    return {
      kind: 'goal' as const,
      locked,
      goal: goal
        ? {
            id: goal.id,
            name: goal.name,
            kind: goal.kind,
            eventName: goal.eventName,
            urlOp: goal.urlOp,
            urlValue: goal.urlValue,
            description: goal.description,
            attributionDays: goal.attributionDays,
            active: goal.active,
          }
        : null,
      tracker: null,
    };
  }
  const tracker = id === 'new' ? null : await getSaleTracker({ accountId: ctx.account.id, id });
  if (tracker === undefined) throw new Response('Not Found', { status: 404 });
  return {
    kind: 'tracker' as const,
    locked,
    goal: null,
    tracker: tracker
      ? { id: tracker.id, name: tracker.name, currency: tracker.currency, attributionDays: tracker.attributionDays, active: tracker.active }
      : null,
  };
}

export async function conversionEditorAction(kind: ConversionKind, { request, params }: ActionFunctionArgs) {
  const k = KINDS[kind];
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, k.feature, ctx);
  const common = {
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readParam(params[k.param]),
    list: k.list,
    toasts: k.toasts,
  };
  return kind === 'goal'
    ? settingsEditorAction({ ...common, schema: GoalSchema, create: createGoal, update: updateGoal, remove: deleteGoal })
    : settingsEditorAction({ ...common, schema: SaleTrackerSchema, create: createSaleTracker, update: updateSaleTracker, remove: deleteSaleTracker });
}
