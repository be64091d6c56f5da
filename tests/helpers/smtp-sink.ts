import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { resetSingleton } from '../../app/utils/singleton.server';

/**
 * A local SMTP server on loopback that keeps every mail (parsed, and raw for headers), set as SMTP_URL for the
 * product's transports (single and bulk). `stop()` puts things back.
 */
export async function startSmtpSink() {
  const received: { mail: ParsedMail; raw: string; to: string[] }[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        received.push({ mail: await simpleParser(raw), raw: raw.toString('utf8'), to: session.envelope.rcptTo.map((r) => r.address) });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  process.env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`;
  const reset = () => ['config', 'smtp-transport', 'smtp-bulk-transport'].forEach((k) => resetSingleton(k));
  reset();
  return {
    received,
    async stop() {
      delete process.env.SMTP_URL;
      reset();
      await new Promise<void>((r) => smtp.close(() => r()));
    },
  };
}
