import { createCookie, data, redirect } from '@remix-run/node';
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { builtOnce, getDb, schema } from '../../db/client';
import type { PlanFeatures } from '../../db/schema/accounts';
import { effectivePlan, type Account } from '../models/accounts/accounts.server';
import { createSession, findSession, isIdleExpired, judgeSession, REMEMBER_MS, revokeSession, TOUCH_EVERY_MS, touchSession, type PendingStep } from '../models/auth/sessions.server';
import { FEATURE_DENIED_MESSAGE, hasFeature, type FeatureKey } from '../models/plans/catalogue';
import { areaFeatureOf } from '../models/plans/areas';
import type { Permission } from '../models/roles/permissions';
import { getConfig } from './env.server';
import { singleton } from './singleton.server';
import { requestMemo } from './request-scope.server';
import { deniedFallback } from './denied-fallback';
import { redirectWithToast } from './toast.server';
import { accountDomainOf, accountSuspended, primeTenant, requireAccount, rethrowUnavailable } from './tenant.server';
import { failingChannelsColumn, primeFailingChannels } from '../models/channels/health.server';

function sessionCookie() {
  return singleton('session-cookie', () =>
    createCookie('__parley_session', {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secrets: [getConfig().sessionSecret],
    }),
  );
}

const isHttps = (request: Request) => new URL(request.url).protocol === 'https:';

export async function readSessionId(request: Request): Promise<string | null> {
  const value = await sessionCookie().parse(request.headers.get('Cookie'));
  return typeof value === 'string' ? value : null;
}

/**
 * Signs the user in on this account's host: a database session and a host-only cookie. With `pendingStep` the
 * session only reaches the two-factor pages until that step is done.
 */
export async function startSession(request: Request, opts: { accountId: number; userId: number; remember: boolean; pendingStep?: PendingStep | null }) {
  const session = await createSession({ ...opts, userAgent: request.headers.get('user-agent') });
  return sessionCookie().serialize(session.id, {
    secure: isHttps(request),
    // Without "remember me" the cookie has no expiry and ends with the browser.
    ...(opts.remember ? { maxAge: REMEMBER_MS / 1000 } : {}),
  });
}

export async function clearSessionCookie(request: Request) {
  return sessionCookie().serialize('', { maxAge: 0, secure: isHttps(request) });
}

export async function endSession(request: Request, accountId: number) {
  const id = await readSessionId(request);
  if (id) await revokeSession({ id, accountId });
  return clearSessionCookie(request);
}

// Everything but the avatar bytes, which only the avatar route reads.
const { avatar: _avatar, ...userColumns } = getTableColumns(schema.users);
export type CurrentUser = Omit<typeof schema.users.$inferSelect, 'avatar'>;
export type CurrentRole = typeof schema.roles.$inferSelect;

export type AppContext = {
  account: Account;
  user: CurrentUser;
  role: CurrentRole;
  permissions: Set<string>;
  plan: { key: string; name: string; features: PlanFeatures };
  sessionId: string;
  isOrgAdmin: boolean;
  /** The user's unread notifications, counted up to UNREAD_CAP (the shell shows "99+" past 99). */
  unread: number;
};

export const UNREAD_CAP = 100;

/**
 * Loads the signed-in user of this account, or null. Throws a redirect when the session has expired. Every matched
 * route's loader guards itself; within one page request they share one lookup (request-scope.server.ts).
 */
export function getAppContext(request: Request): Promise<AppContext | null> {
  return requestMemo(`app-context ${new URL(request.url).host} ${request.headers.get('cookie') ?? ''}`, () => loadAppContext(request));
}

const appContextQuery = () =>
  builtOnce('app_context', (db) =>
    db
      .select({
        account: schema.accounts,
        session: schema.sessions,
        user: userColumns,
        role: schema.roles,
        plan: schema.plans,
        unread: sql<number>`(select count(*)::int from (select 1 from ${schema.notifications} n
          where n.account_id = ${schema.accounts.id} and n.user_id = ${schema.users.id} and n.read_at is null limit ${UNREAD_CAP}) capped)`,
        failing: failingChannelsColumn(sql`${schema.accounts.id}`),
      })
      .from(schema.accounts)
      .leftJoin(schema.sessions, and(eq(schema.sessions.id, sql.placeholder('id')), eq(schema.sessions.accountId, schema.accounts.id)))
      .leftJoin(schema.users, and(eq(schema.users.id, schema.sessions.userId), eq(schema.users.accountId, schema.sessions.accountId)))
      .leftJoin(schema.roles, eq(schema.roles.id, schema.users.roleId))
      .leftJoin(schema.plans, eq(schema.plans.id, schema.accounts.planId))
      .where(sql`lower(${schema.accounts.domain}) = ${sql.placeholder('domain')}`)
      .prepare('app_context'),
  );

async function loadAppContext(request: Request): Promise<AppContext | null> {
  const domain = accountDomainOf(request);
  const id = await readSessionId(request);
  // No session, or not an account's host: the tenant lookup alone decides (404, 418, or nobody signed in).
  if (!id || !domain) {
    await requireAccount(request);
    return null;
  }
  // The account, the session, its user, role and plan, and what the shell shows (unread notifications, failing
  // channels) in one statement (ADR 110), built once (ADR 136): judged here as findSession judges the session.
  const [row] = await appContextQuery()
    .execute({ id, domain })
    .catch(rethrowUnavailable);
  if (!row) {
    await requireAccount(request);
    return null;
  }
  const account = row.account;
  primeTenant(request, account);
  // Suspended by an operator (ADR 152): every page of the account is the suspended page, the session is kept.
  if (account.suspendedAt) throw accountSuspended();
  primeFailingChannels(account.id, row.failing);
  const found = judgeSession(row.session);
  if (found.state === 'expired') {
    throw redirect('/signin?expired=1', { headers: { 'Set-Cookie': await clearSessionCookie(request) } });
  }
  if (found.state !== 'active') return null;
  // Idle sign-out (ADR 148): judged on the server whatever the page's script did.
  if (isIdleExpired(found.session, account.settings.idleSignOutMinutes)) {
    await revokeSession({ id, accountId: account.id });
    throw redirect(`/signin?idle=1${signinReturn(request)}`, { headers: { 'Set-Cookie': await clearSessionCookie(request) } });
  }
  if (isUserActivity(request) && Date.now() - found.session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await touchSession({ id, accountId: account.id });
  if (!row.user || !row.role || !row.plan || !row.user.hasAccess || row.user.status !== 'active') return null;
  return {
    account,
    user: row.user,
    role: row.role,
    permissions: new Set(row.role.permissions),
    plan: await effectivePlan(account, { key: row.plan.key, name: row.plan.name, features: row.plan.features }),
    sessionId: id,
    isOrgAdmin: row.role.kind === 'owner' || row.role.kind === 'admin',
    unread: row.unread,
  };
}

/**
 * Whether a request says the user is there: a page opened or a form sent. A page's data requests are not (live
 * updates reload them on their own, and would keep an unattended screen signed in forever), nor is the live
 * socket; with JavaScript, the page's idle module pings while the user is active (ADR 148).
 */
function isUserActivity(request: Request) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return true;
  // Pictures and files a page loads, and the socket, ask for something else than a page.
  if (!(request.headers.get('accept') ?? '').includes('text/html')) return false;
  return !new URL(request.url).searchParams.has('_data');
}

/** `&redirectTo=…` back to this page after signing in again (nothing for the root). */
function signinReturn(request: Request) {
  const url = new URL(request.url);
  const redirectTo = `${url.pathname}${url.search}`;
  // A page's data request (?_data=…) is not somewhere to come back to.
  if (!redirectTo || redirectTo === '/' || url.searchParams.has('_data') || request.method !== 'GET') return '';
  return `&redirectTo=${encodeURIComponent(redirectTo)}`;
}

export const PENDING_STEP_PATHS: Record<PendingStep, string> = { two_factor: '/two-factor', two_factor_setup: '/two-factor-setup' };

/**
 * Guard: the signed-in user of this account, or a redirect to this account's sign-in page (or, for a session
 * that has only passed the password, to its second step).
 */
export async function requireUser(request: Request): Promise<AppContext> {
  const ctx = await getAppContext(request);
  if (!ctx) {
    const pending = await getPendingSession(request);
    if (pending) throw redirect(PENDING_STEP_PATHS[pending.step]);
    const url = new URL(request.url);
    const redirectTo = `${url.pathname}${url.search}`;
    throw redirect(`/signin${redirectTo && redirectTo !== '/' ? `?redirectTo=${encodeURIComponent(redirectTo)}` : ''}`);
  }
  await requireAreaFeature(request, ctx);
  return ctx;
}

/**
 * The plan area of the path (ADR 157; app/models/plans/areas.ts): every guard starts with requireUser, so every page
 * and form of an area is refused when the plan lacks the area, including routes added later. A page load falls back
 * to the nearest page outside the refused area (Home at the latest) with the message as a toast; a post gets 403.
 */
async function requireAreaFeature(request: Request, ctx: AppContext) {
  const key = areaFeatureOf(new URL(request.url).pathname);
  if (!key || canUseFeature(ctx, key)) return;
  let fallback = deniedFallback(request);
  for (let hops = 0; fallback && fallback !== '/home' && hops < 5; hops++) {
    const above = areaFeatureOf(fallback);
    if (!above || canUseFeature(ctx, above)) break;
    fallback = deniedFallback({ method: 'GET', url: new URL(fallback, request.url).href, headers: new Headers({ accept: 'text/html' }) });
  }
  if (fallback) throw await redirectWithToast(fallback, { type: 'error', text: FEATURE_DENIED.message });
  throw data<DeniedData>(FEATURE_DENIED, { status: 403 });
}

/** The session of this request if it has passed the password but not yet its second step; otherwise null. */
export async function getPendingSession(request: Request) {
  const id = await readSessionId(request);
  if (!id) return null;
  const account = await requireAccount(request);
  const found = await findSession({ id, accountId: account.id });
  if (found.state !== 'pending') return null;
  return { account, session: found.session, step: found.step };
}

/** Guard of the two-factor pages: a session waiting for this step, or a redirect to where the user belongs. */
export async function requirePendingSession(request: Request, step: PendingStep) {
  const pending = await getPendingSession(request);
  if (pending?.step === step) return pending;
  if (pending) throw redirect(PENDING_STEP_PATHS[pending.step]);
  if (await getAppContext(request)) throw redirect('/home');
  throw redirect('/signin');
}

export function can(ctx: AppContext, permission: Permission) {
  return ctx.permissions.has(permission);
}

export function canUseFeature(ctx: AppContext, key: FeatureKey) {
  return hasFeature(ctx.plan.features, key);
}

export type DeniedData = { denied: 'role' | 'feature'; message: string };

const ROLE_DENIED: DeniedData = { denied: 'role', message: "You aren't authorized to see this page." };
const FEATURE_DENIED: DeniedData = { denied: 'feature', message: FEATURE_DENIED_MESSAGE };

/**
 * The 403 page in place, for a page that is its area's own landing (Analytics opens on its overview: falling back to
 * the area would come straight back here).
 */
export function deniedInPlace(kind: DeniedData['denied']): never {
  throw data<DeniedData>(kind === 'role' ? ROLE_DENIED : FEATURE_DENIED, { status: 403 });
}

/** Refuses a user whose role lacks what a route checks itself (see `deny`: a page load falls back, a post gets 403). */
export function roleDenied(request: Request): Promise<never> {
  return deny(request, ROLE_DENIED);
}

/**
 * The one place a guard refuses: a page load falls back to the settings or list page one level up with the denial
 * as an error toast (section 2); a form post or an API call gets the 403 page or status.
 */
async function deny(request: Request, denial: DeniedData): Promise<never> {
  const fallback = deniedFallback(request);
  if (fallback) throw await redirectWithToast(fallback, { type: 'error', text: denial.message });
  throw data<DeniedData>(denial, { status: 403 });
}

/** Guard: refuses (see `deny`) unless the user's role grants the permission. */
export async function requirePermission(request: Request, permission: Permission): Promise<AppContext> {
  const ctx = await requireUser(request);
  if (!can(ctx, permission)) await deny(request, ROLE_DENIED);
  return ctx;
}

/** Guard: refuses (see `deny`) unless the account's plan has the feature. */
export async function requireFeature(request: Request, key: FeatureKey, ctx?: AppContext): Promise<AppContext> {
  const c = ctx ?? (await requireUser(request));
  if (!canUseFeature(c, key)) await deny(request, FEATURE_DENIED);
  return c;
}

/** Guard: owners and admins only (roles, teams, users, as the specification says). */
export async function requireOrgAdmin(request: Request): Promise<AppContext> {
  const ctx = await requireUser(request);
  if (!ctx.isOrgAdmin) await deny(request, ROLE_DENIED);
  return ctx;
}

/** Guard: the account's owner only (the whole account's export, ADR 153). */
export async function requireAccountOwner(request: Request): Promise<AppContext> {
  const ctx = await requireUser(request);
  if (ctx.role.kind !== 'owner') await deny(request, ROLE_DENIED);
  return ctx;
}

/** What the browser may know about the current user: no hashes, no avatar bytes. */
export function publicUser(ctx: AppContext) {
  const { user } = ctx;
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    dateFormat: user.dateFormat,
    timeFormat: user.timeFormat,
    timezone: user.timezone,
    avatarColor: user.avatarColor,
    hasAvatar: Boolean(user.avatarType),
    roleName: ctx.role.name,
    roleKind: ctx.role.kind,
  };
}
