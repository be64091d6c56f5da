import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { findEmailInboxById, ingestEmail, MAX_RAW_EMAIL_BYTES } from '../app/models/email/inbound.server';
import { describeStoreFailure, isTemporaryFailure } from '../app/models/email/quarantine.server';
import { getLogger } from '../app/utils/logger.server';
import { EMAIL_CHANNEL_FEATURE, planAllows } from '../app/models/plans/enforce.server';
import { FEATURE_DENIED_MESSAGE } from '../app/models/plans/catalogue';
import { isAccountSuspended, SUSPENDED_MESSAGE, SUSPENDED_RETRY_AFTER_SECONDS } from '../app/models/accounts/suspension.server';

function sameSecret(given: string, expected: string) {
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/**
 * POST /webhooks/email/<inboxId>: a mail service posts one raw RFC 822 message (any content type) with
 * `Authorization: Bearer <the inbox's secret>`. 202 once ingested; 401 without the right secret; 404 for an
 * unknown inbox; 413 over 30 MB. The route sits under /webhooks/, which the CSRF check leaves to its own auth.
 */
export function emailWebhookRouter() {
  const router = express.Router();
  const log = getLogger();
  router.post(
    '/webhooks/email/:inboxId',
    express.raw({ type: () => true, limit: MAX_RAW_EMAIL_BYTES }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const param = String(req.params.inboxId ?? '');
        const id = /^\d{1,10}$/.test(param) ? Number(param) : NaN;
        if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647) return void res.status(404).type('text/plain').send('Not Found');
        const auth = req.headers.authorization ?? '';
        const given = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
        if (!given) return void res.status(401).set('WWW-Authenticate', 'Bearer').type('text/plain').send('Unauthorized');
        const inbox = await findEmailInboxById(id);
        if (!inbox) return void res.status(404).type('text/plain').send('Not Found');
        if (!inbox.secret || !sameSecret(given, inbox.secret)) return void res.status(401).set('WWW-Authenticate', 'Bearer').type('text/plain').send('Unauthorized');
        // A suspended account (ADR 152): 503 with Retry-After, the service keeps the message and sends it again.
        if (await isAccountSuspended(inbox.accountId))
          return void res.status(503).set('Retry-After', String(SUSPENDED_RETRY_AFTER_SECONDS)).type('text/plain').send(SUSPENDED_MESSAGE);
        // A plan without the Inbox (ADR 157): the same temporary answer with the plan's message, so that the mail
        // service keeps the message rather than dropping it (unlike the other providers' final 403: this is mail).
        if (!(await planAllows({ accountId: inbox.accountId, key: EMAIL_CHANNEL_FEATURE })))
          return void res.status(503).set('Retry-After', String(SUSPENDED_RETRY_AFTER_SECONDS)).type('text/plain').send(FEATURE_DENIED_MESSAGE);
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        if (raw.byteLength === 0) return void res.status(400).type('text/plain').send('The body must be a raw RFC 822 message');
        // A mail the database refuses is quarantined (202 all the same: the service must not resend it forever).
        const result = await ingestEmail({ inbox, raw, via: 'http' });
        res.status(202).json(result);
      } catch (err) {
        if (isTemporaryFailure(err)) {
          log.error({ reason: describeStoreFailure(err) }, 'email webhook: temporary failure');
          return void res.status(503).set('Retry-After', '60').type('text/plain').send('Service Unavailable, try again later');
        }
        next(err);
      }
    },
  );
  // Body errors (too large, aborted) answer in plain text with their own status; anything else is a 500.
  router.use('/webhooks/email', (err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) log.error({ reason: describeStoreFailure(err) }, 'email webhook failed');
    res.status(status).type('text/plain').send(status === 413 ? 'Payload Too Large' : status === 500 ? 'Internal Server Error' : 'Bad Request');
  });
  return router;
}
