import { and, asc, eq, gt, isNotNull, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { EmailSchema } from '../accounts/email-schema';
import { hashPassword, randomToken, sha256, verifyPassword } from '../../utils/password.server';
import { recordOperatorAction, type OperatorActor } from './audit.server';

/**
 * Operators (ADR 152): named by the command line only. `operator add` prints a one-time link to set a password on
 * APP_HOST (valid 24 hours); the operator then signs in at /operator/signin with that email and password. Nothing
 * on the web creates an operator or a link.
 */
export const SETUP_LINK_MS = 24 * 3600_000;
/** An operator's session lasts 12 hours at most, and ends after 30 minutes without a request (ADR 148's idle sign-out). */
export const OPERATOR_SESSION_MS = 12 * 3600_000;
export const OPERATOR_IDLE_MS = 30 * 60_000;
const TOUCH_EVERY_MS = 15_000;

const CLI: OperatorActor = { kind: 'cli' };

export class OperatorInputError extends Error {}

export type Operator = typeof schema.operators.$inferSelect;

function normaliseEmail(email: string) {
  const parsed = EmailSchema.safeParse(email);
  if (!parsed.success) throw new OperatorInputError(`"${email}" is not an email address.`);
  return parsed.data.toLowerCase();
}

export async function findOperatorByEmail(email: string) {
  const [row] = await getDb()
    .select()
    .from(schema.operators)
    .where(sql`lower(${schema.operators.email}) = ${email.trim().toLowerCase()}`);
  return row;
}

function newSetupToken() {
  const token = randomToken(32);
  return { token, setupTokenHash: sha256(token), setupTokenExpiresAt: new Date(Date.now() + SETUP_LINK_MS) };
}

/** Names an operator and returns the one-time token of its set-password link (shown once, stored hashed). */
export async function addOperator(opts: { email: string; actor?: OperatorActor }) {
  const email = normaliseEmail(opts.email);
  if (await findOperatorByEmail(email)) throw new OperatorInputError(`${email} is already an operator. "operator link ${email}" prints a new set-password link.`);
  const { token, ...setup } = newSetupToken();
  return getDb().transaction(async (tx) => {
    const [operator] = await tx.insert(schema.operators).values({ email, ...setup }).returning();
    await recordOperatorAction({ actor: opts.actor ?? CLI, action: 'operator.add', details: { operator: email } }, tx);
    return { operator, token, expiresAt: setup.setupTokenExpiresAt };
  });
}

/** A new set-password link for an operator (a forgotten password); the old link stops working. */
export async function issueOperatorLink(opts: { email: string; actor?: OperatorActor }) {
  const email = normaliseEmail(opts.email);
  const { token, ...setup } = newSetupToken();
  return getDb().transaction(async (tx) => {
    const [operator] = await tx
      .update(schema.operators)
      .set(setup)
      .where(sql`lower(${schema.operators.email}) = ${email}`)
      .returning();
    if (!operator) return null;
    await recordOperatorAction({ actor: opts.actor ?? CLI, action: 'operator.link', details: { operator: email } }, tx);
    return { operator, token, expiresAt: setup.setupTokenExpiresAt };
  });
}

/** Removes an operator; its sessions go with it (cascade), so a signed-in browser is signed out at its next request. */
export async function removeOperator(opts: { email: string; actor?: OperatorActor }) {
  const email = normaliseEmail(opts.email);
  return getDb().transaction(async (tx) => {
    const rows = await tx
      .delete(schema.operators)
      .where(sql`lower(${schema.operators.email}) = ${email}`)
      .returning({ id: schema.operators.id });
    if (rows.length === 0) return false;
    await recordOperatorAction({ actor: opts.actor ?? CLI, action: 'operator.remove', details: { operator: email } }, tx);
    return true;
  });
}

export async function listOperators() {
  return getDb()
    .select({
      id: schema.operators.id,
      email: schema.operators.email,
      hasPassword: sql<boolean>`${schema.operators.passwordHash} is not null`,
      lastSignInAt: schema.operators.lastSignInAt,
      createdAt: schema.operators.createdAt,
    })
    .from(schema.operators)
    .orderBy(asc(schema.operators.email));
}

/** The operator a set-password token names while it is valid, or undefined. */
export async function findOperatorBySetupToken(token: string) {
  if (!token || token.length > 200) return undefined;
  const [row] = await getDb()
    .select({ id: schema.operators.id, email: schema.operators.email })
    .from(schema.operators)
    .where(and(eq(schema.operators.setupTokenHash, sha256(token)), gt(schema.operators.setupTokenExpiresAt, new Date())));
  return row;
}

/**
 * Sets the password through the one-time link: the token is spent, and any session of that operator ends (a new
 * password shuts out whoever had the old one). Null when the link is unknown, used or expired.
 */
export async function setOperatorPassword(opts: { token: string; password: string; ip?: string | null }) {
  const found = await findOperatorBySetupToken(opts.token);
  if (!found) return null;
  const passwordHash = await hashPassword(opts.password);
  return getDb().transaction(async (tx) => {
    const [operator] = await tx
      .update(schema.operators)
      .set({ passwordHash, setupTokenHash: null, setupTokenExpiresAt: null })
      .where(and(eq(schema.operators.id, found.id), eq(schema.operators.setupTokenHash, sha256(opts.token)), gt(schema.operators.setupTokenExpiresAt, new Date())))
      .returning();
    if (!operator) return null;
    await tx.delete(schema.operatorSessions).where(eq(schema.operatorSessions.operatorId, operator.id));
    await recordOperatorAction({ actor: { kind: 'operator', id: operator.id, email: operator.email }, action: 'operator.password', ip: opts.ip }, tx);
    return operator;
  });
}

// A hash to compare against when the email is unknown, so that the answer takes as long either way.
let dummyHash: Promise<string> | undefined;

/** The operator whose email and password these are, or null (the same answer for an unknown email and a wrong password). */
export async function verifyOperatorCredentials(opts: { email: string; password: string }) {
  const operator = await findOperatorByEmail(opts.email);
  if (!operator?.passwordHash) {
    await verifyPassword(opts.password, await (dummyHash ??= hashPassword('not a password of anyone')));
    return null;
  }
  return (await verifyPassword(opts.password, operator.passwordHash)) ? operator : null;
}

/** Signs the operator in: a random id for the cookie; the table keeps only its hash. */
export async function createOperatorSession(opts: { operatorId: number; userAgent?: string | null; ip?: string | null }) {
  const id = randomToken(32);
  await getDb().transaction(async (tx) => {
    await tx.insert(schema.operatorSessions).values({
      idHash: sha256(id),
      operatorId: opts.operatorId,
      expiresAt: new Date(Date.now() + OPERATOR_SESSION_MS),
      userAgent: opts.userAgent?.slice(0, 300) ?? null,
    });
    const [operator] = await tx.update(schema.operators).set({ lastSignInAt: new Date() }).where(eq(schema.operators.id, opts.operatorId)).returning();
    await recordOperatorAction({ actor: { kind: 'operator', id: operator.id, email: operator.email }, action: 'operator.signin', ip: opts.ip }, tx);
  });
  return id;
}

export type OperatorSessionLookup = { state: 'missing' } | { state: 'idle' } | { state: 'active'; operator: { id: number; email: string } };

/** The operator of a session id: missing (none, expired, removed operator), idle (ended for inactivity), or active. */
export async function findOperatorSession(id: string | null, now = Date.now()): Promise<OperatorSessionLookup> {
  if (!id) return { state: 'missing' };
  const idHash = sha256(id);
  const [row] = await getDb()
    .select({ session: schema.operatorSessions, operator: { id: schema.operators.id, email: schema.operators.email, passwordHash: schema.operators.passwordHash } })
    .from(schema.operatorSessions)
    .innerJoin(schema.operators, eq(schema.operators.id, schema.operatorSessions.operatorId))
    .where(and(eq(schema.operatorSessions.idHash, idHash), gt(schema.operatorSessions.expiresAt, new Date(now)), isNotNull(schema.operators.passwordHash)));
  if (!row) return { state: 'missing' };
  if (now - row.session.lastSeenAt.getTime() > OPERATOR_IDLE_MS) {
    await getDb().delete(schema.operatorSessions).where(eq(schema.operatorSessions.idHash, idHash));
    return { state: 'idle' };
  }
  if (now - row.session.lastSeenAt.getTime() > TOUCH_EVERY_MS)
    await getDb().update(schema.operatorSessions).set({ lastSeenAt: new Date(now) }).where(eq(schema.operatorSessions.idHash, idHash));
  return { state: 'active', operator: { id: row.operator.id, email: row.operator.email } };
}

export async function endOperatorSession(id: string | null) {
  if (id) await getDb().delete(schema.operatorSessions).where(eq(schema.operatorSessions.idHash, sha256(id)));
}
