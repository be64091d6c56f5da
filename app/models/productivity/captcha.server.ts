import crypto from 'node:crypto';
import { createChallenge, verifySolution } from 'altcha-lib';
import type { Challenge } from 'altcha-lib/types';
import { getConfig } from '../../utils/env.server';
import { singleton } from '../../utils/singleton.server';

/**
 * The contact form's self-hosted captcha, in two layers:
 * - with JavaScript, an ALTCHA proof of work (SHA-256) that the page solves in the background;
 * - without JavaScript, a honeypot field, a signed timestamp that must be a few seconds old, and a small sum
 *   whose answer travels only as an HMAC. Naive bots fill every field, post at once, or replay a page; each is refused.
 * Both tokens are single-use while they are valid, so one solved page cannot carry many posts.
 */

export const CAPTCHA_MIN_AGE_MS = 3_000;
export const CAPTCHA_MAX_AGE_MS = 2 * 60 * 60 * 1000;
export const ALTCHA_MAX_NUMBER = 50_000;

export const CAPTCHA_MESSAGES = {
  missing: 'Please answer the question to show you are not a robot',
  wrong: 'That answer is not correct, please try again',
  tooFast: 'That was quick! Please wait a few seconds and send again',
  expired: 'This form has expired. Please answer the new question',
  invalid: 'The verification did not succeed. Please answer the question',
  honeypot: 'We could not accept this message. Please try again',
} as const;

function deriveKey(purpose: string) {
  return crypto.createHmac('sha256', getConfig().sessionSecret).update(`parley:${purpose}`).digest('hex');
}

const altchaKey = () => singleton('altcha-hmac-key', () => deriveKey('altcha'));
const fallbackKey = () => singleton('contact-captcha-key', () => deriveKey('contact-form-captcha'));

/** Tokens already used, until they would have expired anyway. One Parley process, like the rate limits. */
const spentTokens = () => singleton('captcha-spent', () => new Map<string, number>());

function isSpent(token: string) {
  const exp = spentTokens().get(token);
  return exp !== undefined && exp > Date.now();
}

function spend(token: string, expiresAt: number) {
  const used = spentTokens();
  const now = Date.now();
  if (used.size > 20_000) for (const [k, exp] of used) if (exp <= now) used.delete(k);
  if (isSpent(token)) return false;
  used.set(token, expiresAt);
  return true;
}

function sign(parts: (string | number)[]) {
  return crypto.createHmac('sha256', fallbackKey()).update(parts.join('.')).digest('base64url');
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export type CaptchaChallenge = {
  /** The ALTCHA challenge the page's script solves. */
  altcha: Challenge;
  /** The question shown without JavaScript. */
  question: string;
  /** `issuedAt.nonce.signature`: binds the form, the time and the answer. */
  token: string;
};

/** A fresh challenge for one rendering of one form. */
export async function createCaptcha(opts: { formId: number; now?: number }): Promise<CaptchaChallenge> {
  const now = opts.now ?? Date.now();
  const a = crypto.randomInt(1, 10);
  const b = crypto.randomInt(1, 10);
  const nonce = crypto.randomBytes(9).toString('base64url');
  const altcha = await createChallenge({
    hmacKey: altchaKey(),
    maxNumber: ALTCHA_MAX_NUMBER,
    expires: new Date(now + CAPTCHA_MAX_AGE_MS),
    params: { form: String(opts.formId) },
  });
  return { altcha, question: `What is ${a} + ${b}?`, token: `${now}.${nonce}.${sign([opts.formId, now, nonce, a + b])}` };
}

export type CaptchaAnswer = { altcha?: string | null; answer?: string | null; token?: string | null };
export type CaptchaResult = { ok: true; via: 'altcha' | 'question'; spent?: string } | { ok: false; message: string };

/** Whether the honeypot field was filled in: people cannot see it, so only a bot does that. */
export function isHoneypotFilled(value: FormDataEntryValue | null | undefined) {
  return typeof value === 'string' ? value.trim() !== '' : value != null;
}

/**
 * Checks what the page sent back: an ALTCHA solution, or else the answer to the question with its token.
 * With `spend`, a passing token is used up (the submission goes through); without it, it stays valid, so that a
 * visitor who still has a field to fix does not have to solve a new one.
 */
export async function verifyCaptcha(opts: { formId: number; now?: number; spend: boolean } & CaptchaAnswer): Promise<CaptchaResult> {
  const now = opts.now ?? Date.now();
  const use = (key: string, expiresAt: number) => (opts.spend ? spend(key, expiresAt) : !isSpent(key));

  const payload = opts.altcha?.trim();
  if (payload) {
    const verified = await verifySolution(payload, altchaKey(), true).catch(() => false);
    const params = verified ? readAltchaParams(payload) : null;
    if (verified && params?.form === String(opts.formId) && use(`altcha:${params.signature}`, now + CAPTCHA_MAX_AGE_MS)) {
      return { ok: true, via: 'altcha', ...(opts.spend ? { spent: `altcha:${params.signature}` } : {}) };
    }
    // A bad or replayed solution falls through to the question, which a person can still answer.
  }

  const [issuedRaw, nonce, signature] = (opts.token ?? '').split('.');
  const issuedAt = Number(issuedRaw);
  if (!nonce || !signature || !Number.isSafeInteger(issuedAt)) return { ok: false, message: CAPTCHA_MESSAGES.invalid };
  if (now - issuedAt > CAPTCHA_MAX_AGE_MS || issuedAt > now + 60_000) return { ok: false, message: CAPTCHA_MESSAGES.expired };
  const answer = (opts.answer ?? '').trim();
  if (!answer) return { ok: false, message: CAPTCHA_MESSAGES.missing };
  if (!/^\d{1,3}$/.test(answer) || !safeEqual(signature, sign([opts.formId, issuedAt, nonce, Number(answer)]))) {
    return { ok: false, message: CAPTCHA_MESSAGES.wrong };
  }
  if (now - issuedAt < CAPTCHA_MIN_AGE_MS) return { ok: false, message: CAPTCHA_MESSAGES.tooFast };
  if (!use(`q:${signature}`, issuedAt + CAPTCHA_MAX_AGE_MS)) return { ok: false, message: CAPTCHA_MESSAGES.expired };
  return { ok: true, via: 'question', ...(opts.spend ? { spent: `q:${signature}` } : {}) };
}

/** Gives back a token `verifyCaptcha` spent for a submission that was then refused before storing anything (a full rate-limit window). */
export function releaseCaptcha(result: CaptchaResult) {
  if (result.ok && result.spent) spentTokens().delete(result.spent);
}

function readAltchaParams(payload: string) {
  try {
    const decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { salt?: string; signature?: string };
    const query = decoded.salt?.split('?')[1] ?? '';
    const params = new URLSearchParams(query);
    return { form: params.get('form'), signature: decoded.signature ?? '' };
  } catch {
    return null;
  }
}
