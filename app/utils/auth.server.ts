import type { Submission } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import type { z } from 'zod';
import { Authenticator } from 'remix-auth';
import { FormStrategy } from 'remix-auth-form';
import { verifyCredentials } from '../models/auth/auth.server';
import { SigninSchema } from '../models/accounts/schemas';
import { checkRateLimit, clientIp, hitRateLimit } from './rate-limit.server';
import { requireAccount } from './tenant.server';
import { singleton } from './singleton.server';

type SigninOutcome =
  | { ok: true; accountId: number; userId: number; remember: boolean; redirectTo?: string }
  | { ok: false; submission: Submission<z.input<typeof SigninSchema>, string[], z.output<typeof SigninSchema>>; formError?: string };

/** remix-auth with the form strategy: parses the sign-in form, rate-limits, checks the password. */
export function getAuthenticator() {
  return singleton('authenticator', () => {
    const authenticator = new Authenticator<SigninOutcome>();
    authenticator.use(
      new FormStrategy(async ({ form, request }) => {
        const account = await requireAccount(request);
        const submission = parseWithZod(form, { schema: SigninSchema });
        if (submission.status !== 'success') return { ok: false, submission };
        const { email, password, remember, redirectTo } = submission.value;
        // Failed attempts only are counted: a user who signs in often is never locked out (ADR 023).
        const limits = [
          { key: `signin-ip:${clientIp(request)}`, limit: 1000, windowMs: 15 * 60_000 },
          { key: `signin:${account.id}:${email}`, limit: 10, windowMs: 15 * 60_000 },
        ];
        for (const l of limits) await checkRateLimit(l.key, l);
        const check = await verifyCredentials({ accountId: account.id, email, password });
        if (!check.ok) {
          for (const l of limits) await hitRateLimit(l.key, l);
          const formError =
            check.reason === 'no_access'
              ? 'Your access to this account has been refused. Please contact your account administrator.'
              : check.reason === 'unverified'
                ? 'Please verify your email first.'
                : 'Invalid email or password';
          return { ok: false, submission, formError };
        }
        return { ok: true, accountId: account.id, userId: check.user.id, remember: Boolean(remember), redirectTo };
      }),
      'form',
    );
    return authenticator;
  });
}
