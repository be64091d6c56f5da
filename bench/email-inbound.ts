/**
 * Email to the agent's screen: a real SMTP client sends to the inbound SMTP server, and an agent's websocket
 * hears of the new conversation. Target (issue 3): under 1 second at p95 over 200 messages.
 * Run: npx remix build && npx tsx bench/email-inbound.ts   (BENCH_MESSAGES=50 for a quick run)
 */
import { WebSocket } from 'ws';
import { benchDatabase, percentile } from './support';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);

async function main() {
  process.env.INBOUND_EMAIL_DOMAIN ??= 'inbound.parley.test';
  const server = await benchDatabase('email');
  const nodemailer = (await import('nodemailer')).default;
  const { closeDb } = await import('../db/client');
  const { stopBoss } = await import('../app/utils/jobs.server');
  const { createTestAccount } = await import('../tests/factories');
  const { sessionCookie, startTestApp } = await import('../tests/helpers/http');
  const { createEmailInbox } = await import('../app/models/email/email-inboxes.server');
  const { forwardingAddress } = await import('../app/models/email/addresses.server');
  const { startInboundSmtp } = await import('../server/smtp-inbound');

  const a = await createTestAccount({ domain: 'benchmail' });
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: 'support@bench.test', mode: 'forwarding' });
  const app = await startTestApp();
  const smtp = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws`, { headers: { host: `${a.domain}.${process.env.APP_HOST}`, cookie } });
  const waiting = new Map<string, (at: number) => void>();
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString()) as { type: string; conversationId?: number };
    if (msg.type === 'conversation.created' && msg.conversationId) waiting.get(String(msg.conversationId))?.(performance.now());
    if (msg.type === 'conversation.created') waiting.get('next')?.(performance.now());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });

  const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  const to = forwardingAddress(inbox)!;
  const samples: number[] = [];
  for (let i = 0; i < MESSAGES + 5; i++) {
    const heard = new Promise<number>((resolve) => waiting.set('next', resolve));
    const start = performance.now();
    await mailer.sendMail({ from: `customer${i}@example.test`, to, subject: `Question ${i}`, text: `Message number ${i}` });
    const at = await Promise.race([heard, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`message ${i} not heard within 10 s`)), 10_000))]);
    waiting.delete('next');
    if (i >= 5) samples.push(at - start);
  }
  const row = { p50: percentile(samples, 50), p95: percentile(samples, 95), max: Math.max(...samples) };
  console.log(
    `${`SMTP → websocket, ${samples.length} messages`.padEnd(58)} p50 ${row.p50.toFixed(1).padStart(7)} ms   p95 ${row.p95.toFixed(1).padStart(7)} ms   max ${row.max.toFixed(1).padStart(7)} ms`,
  );
  console.log(row.p95 < 1000 ? 'target met: p95 under 1 s' : 'TARGET MISSED: p95 is 1 s or more');

  mailer.close();
  ws.close();
  await smtp.close();
  await app.close();
  await stopBoss();
  await closeDb();
  await server.stop();
  process.exit(row.p95 < 1000 ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
