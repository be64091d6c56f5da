import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';

/**
 * The bulk-send benches' SMTP sink (bench/survey-email.ts, bench/campaigns.ts): accepts everything, counts mails and
 * each Message-ID (a second copy of one recipient's mail has the same id), nothing else. A client killed mid-session
 * (the benches SIGKILL the engine) resets its connection: that is logged by nobody, not thrown.
 */
export async function startSink() {
  const ids = new Map<string, number>();
  let total = 0;
  let firstAt = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, _session, cb) {
      let head = '';
      stream.on('data', (c: Buffer) => {
        if (head.length < 4096) head += c.toString('latin1');
      });
      stream.on('end', () => {
        total++;
        if (!firstAt) firstAt = Date.now();
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? `none-${total}`;
        ids.set(id, (ids.get(id) ?? 0) + 1);
        cb();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    total: () => total,
    firstAt: () => firstAt,
    ids,
    duplicates: () => [...ids.values()].reduce((n, c) => n + (c > 1 ? c - 1 : 0), 0),
    reset: () => {
      total = 0;
      firstAt = 0;
      ids.clear();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The ceiling: the sink's own throughput in this run — nodemailer's pool of 8 composing each mail, straight into the
 * sink, no database (`raw`: prepared bytes, nothing composed — the sink's own limit). Printed beside the sender's rate, because on a shared machine the sink (in the bench's process)
 * bounds what any sender can reach.
 */
export async function sinkCeiling(sink: Awaited<ReturnType<typeof startSink>>, n = 5000, raw = false) {
  const transport = nodemailer.createTransport(`${sink.url}/?pool=true&maxConnections=8&maxMessages=Infinity`);
  const html = `<html><body>${'<p>Hello there, this is the monthly news with a link.</p>'.repeat(40)}</body></html>`;
  const t = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const i = next++;
        if (raw)
          await transport.sendMail({
            envelope: { from: 'news@bench.test', to: [`r${i}@example.test`] },
            raw: `From: news@bench.test\r\nTo: r${i}@example.test\r\nSubject: News\r\nMessage-ID: <ceiling.${i}@bench.test>\r\nContent-Type: text/html\r\n\r\n${html}\r\n`,
          });
        else await transport.sendMail({ from: 'news@bench.test', to: `r${i}@example.test`, subject: 'News', html, text: 'Hello', messageId: `<ceiling.${i}@bench.test>` });
      }
    }),
  );
  transport.close();
  const rate = (n * 1000) / (Date.now() - t);
  sink.reset();
  return rate;
}

/** Where the engine's bulk-send loop writes each job's figures (PARLEY_BULK_STATS_FILE, ADR 084). */
export const bulkStatsFile = () => path.join(os.tmpdir(), `parley-bulk-stats-${process.pid}.jsonl`);

/** The mark statements' latency the loop measured (the message's end waits for it, ADR 084 addendum), over the finished jobs. */
export function windowReport(statsFile: string) {
  if (!fs.existsSync(statsFile)) return 'no bulk-loop figures (the sender predates ADR 084)';
  const jobs = fs.readFileSync(statsFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sent: number; markStatements: number; markLagMs: { max: number; p95: number } });
  const sent = jobs.reduce((n, j) => n + j.sent, 0);
  const statements = jobs.reduce((n, j) => n + j.markStatements, 0);
  return `sent marks (campaigns: written beside the message's end; surveys: as the server holds all but the end): latency p95 of jobs ${Math.max(...jobs.map((j) => j.markLagMs.p95))} ms, max ${Math.max(...jobs.map((j) => j.markLagMs.max))} ms; ${sent} mails marked in ${statements} statements (${(sent / Math.max(1, statements)).toFixed(1)} a statement) over ${jobs.length} finished jobs`;
}
