import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { inboundDomain, parseInboundRecipient } from '../app/models/email/addresses.server';
import { findInboxByForwardingToken, ingestSmtpMessage, MAX_RAW_EMAIL_BYTES } from '../app/models/email/inbound.server';
import { getLogger } from '../app/utils/logger.server';
import { isAccountSuspended } from '../app/models/accounts/suspension.server';
import { EMAIL_CHANNEL_FEATURE, planAllows } from '../app/models/plans/enforce.server';
import { FEATURE_DENIED_MESSAGE } from '../app/models/plans/catalogue';
import { describeStoreFailure } from '../app/models/email/quarantine.server';
import { noteDatabaseError } from '../db/availability';

/** How many recipients one message may name: forwarding sends one, a reply a few. */
const MAX_RECIPIENTS = 50;

/**
 * An SMTP refusal: smtp-server writes the code itself, so the text starts with the enhanced status code only
 * (`550 5.1.1 …`, RFC 3463). 4.x.x tells the sending server to try again later, 5.x.x not to.
 */
function smtpError(message: string, responseCode: number) {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * The inbound mail server for forwarded mail: no authentication (it is an MX, not a relay), and it accepts
 * only recipients that are forwarding addresses (or reply addresses) of existing inboxes; anything else is
 * refused at RCPT with 550, so Parley never takes mail it would have to bounce later.
 */
export async function startInboundSmtp(opts: { port: number; host?: string }) {
  const log = getLogger();
  const server = new SMTPServer({
    name: inboundDomain(),
    banner: 'Parley inbound mail',
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: MAX_RAW_EMAIL_BYTES,
    maxClients: 200,
    logger: false,
    closeTimeout: 15_000,
    async onRcptTo(address: SMTPServerAddress, session, callback) {
      try {
        if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError('4.5.3 Too many recipients', 452));
        const parsed = parseInboundRecipient(address.address);
        const inbox = parsed ? await findInboxByForwardingToken(parsed.token) : undefined;
        if (!inbox) return callback(smtpError('5.1.1 No such recipient here', 550));
        // A suspended account (ADR 152): the sending server keeps the mail and tries again, as RFC 5321 asks of a 4xx.
        if (await isAccountSuspended(inbox.accountId)) return callback(smtpError('4.2.1 Mailbox temporarily unavailable, try again later', 451));
        // A plan without the Inbox (ADR 157): a 4xx too, not a 5xx that would bounce a customer's mail at once;
        // the sender keeps it for days, time for the account to take a plan with the Inbox again.
        if (!(await planAllows({ accountId: inbox.accountId, key: EMAIL_CHANNEL_FEATURE }))) return callback(smtpError(`4.7.0 ${FEATURE_DENIED_MESSAGE}`, 451));
        callback();
      } catch (err) {
        // The database away (ADR 143): the sender is told to try again, and the process probes until it is back.
        const away = noteDatabaseError(err);
        log[away ? 'warn' : 'error']({ reason: describeStoreFailure(err) }, 'inbound smtp recipient check failed');
        callback(smtpError('4.3.0 Temporary failure, try again later', 451));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_RAW_EMAIL_BYTES) chunks.push(chunk);
      });
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        if (stream.sizeExceeded || size > MAX_RAW_EMAIL_BYTES) return callback(smtpError('5.3.4 Message too big', 552));
        const mailFrom = session.envelope.mailFrom;
        ingestSmtpMessage({
          raw: Buffer.concat(chunks),
          recipients: session.envelope.rcptTo.map((r) => r.address),
          envelopeFrom: mailFrom ? mailFrom.address : '',
        })
          .then(() => callback())
          .catch((err) => {
            log.error({ err: (err as Error).message }, 'inbound smtp ingestion failed');
            // Only a temporary failure gets here (a mail the database refuses is quarantined and accepted):
            // the sending server keeps the mail and tries again.
            callback(smtpError('4.3.0 Temporary failure, try again later', 451));
          });
      });
    },
  });
  server.on('error', (err) => log.warn({ err: err.message }, 'inbound smtp error'));
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  log.info({ port }, 'inbound smtp listening');
  return {
    port,
    /** Stops taking connections and lets open sessions finish (up to closeTimeout). */
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
