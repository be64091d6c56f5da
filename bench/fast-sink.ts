/**
 * A faster SMTP sink for the bulk-send benches (issue 16's 300 mails/s target; bench/smtp-sink.ts on smtp-server takes
 * only ~160-180 mails/s on this machine, which capped every figure). A minimal SMTP server on `net`: EHLO with
 * PIPELINING (RFC 2920), MAIL, RCPT, DATA, RSET, NOOP, QUIT; it accepts everything and counts each message by its
 * Message-ID when — and only when — the terminating `<CRLF>.<CRLF>` arrives, so a client killed before a message's end
 * leaves nothing counted (RFC 5321 §4.1.1.4), exactly what the bulk loop's held end relies on (ADR 084 addendum).
 *
 * Several processes serve one port (node:cluster, round-robin of connections): each worker sends the Message-IDs it
 * counted to the bench's process in batches over IPC; the bench tallies totals and duplicates.
 *
 * Run as a worker by startFastSink(); `fastCeiling` measures the sink's own throughput with a raw pipelining client.
 */
import cluster, { type Worker } from 'node:cluster';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const CRLF_DOT_CRLF = Buffer.from('\r\n.\r\n');

/** One SMTP session: commands line by line (pipelined input is simply read in order), DATA until its end. */
function serve(socket: net.Socket, counted: (id: string) => void) {
  let buf: Buffer = Buffer.alloc(0);
  let inData = false;
  let out: string[] = [];
  socket.setNoDelay(true);
  socket.write('220 fast-sink ESMTP\r\n');
  const flush = () => {
    if (out.length && !socket.destroyed) socket.write(out.join(''));
    out = [];
  };
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      if (inData) {
        // The body starts right after the 354; a body may be empty, so look for "." at its very start too.
        let end = buf.indexOf(CRLF_DOT_CRLF);
        let skip = 5;
        if (buf.length >= 3 && buf[0] === 0x2e && buf[1] === 0x0d && buf[2] === 0x0a) {
          end = 0;
          skip = 3;
        }
        if (end < 0) break;
        const head = buf.subarray(0, Math.min(end, 8192)).toString('latin1');
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? '';
        counted(id);
        buf = buf.subarray(end + skip);
        inData = false;
        out.push('250 2.0.0 queued\r\n');
        continue;
      }
      const nl = buf.indexOf('\r\n');
      if (nl < 0) break;
      const line = buf.subarray(0, nl).toString('latin1');
      buf = buf.subarray(nl + 2);
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') out.push('250-fast-sink\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SIZE 10485760\r\n');
      else if (verb === 'HELO') out.push('250 fast-sink\r\n');
      else if (verb === 'DATA') {
        inData = true;
        out.push('354 go ahead\r\n');
      } else if (verb === 'QUIT') {
        out.push('221 bye\r\n');
        flush();
        socket.end();
        return;
      } else if (verb === 'MAIL' || verb === 'RCPT' || verb === 'RSET' || verb === 'NOOP') out.push('250 2.0.0 ok\r\n');
      else out.push('502 5.5.2 not implemented\r\n');
    }
    flush();
  });
  socket.on('error', () => {});
}

/** Worker: serve the shared port, report counted Message-IDs every 100 ms. */
function runWorker() {
  let batch: string[] = [];
  setInterval(() => {
    if (batch.length) {
      process.send!({ ids: batch });
      batch = [];
    }
  }, 100).unref();
  const server = net.createServer((socket) => serve(socket, (id) => batch.push(id)));
  server.listen(Number(process.env.FAST_SINK_PORT), '127.0.0.1', () => process.send!({ listening: true }));
}

if (!cluster.isPrimary && process.env.FAST_SINK_WORKER) runWorker();

export async function startFastSink(opts: { workers?: number } = {}) {
  const workers = opts.workers ?? 2;
  // A free port for the workers to share (cluster's primary owns the listening socket and deals connections out).
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const ids = new Map<string, number>();
  /** When each Message-ID arrived (ms since the epoch, within the workers' 100 ms reporting): the history of a repeat. */
  const arrivals = new Map<string, number[]>();
  let total = 0;
  let firstAt = 0;
  let pending: (() => void)[] = [];
  cluster.setupPrimary({ exec: fileURLToPath(import.meta.url), execArgv: ['--import', 'tsx'], silent: false });
  const forked: Worker[] = [];
  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<void>((resolve) => {
          const w = cluster.fork({ FAST_SINK_WORKER: '1', FAST_SINK_PORT: String(port) });
          forked.push(w);
          w.on('message', (m: { listening?: boolean; ids?: string[] }) => {
            if (m.listening) resolve();
            if (m.ids) {
              if (!firstAt) firstAt = Date.now();
              const now = Date.now();
              for (const id of m.ids) {
                total++;
                const key = id || `none-${total}`;
                ids.set(key, (ids.get(key) ?? 0) + 1);
                const at = arrivals.get(key);
                if (at) at.push(now);
                else arrivals.set(key, [now]);
              }
              const waiting = pending;
              pending = [];
              for (const f of waiting) f();
            }
          });
        }),
    ),
  );
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    workers,
    total: () => total,
    firstAt: () => firstAt,
    ids,
    duplicates: () => [...ids.values()].reduce((n, c) => n + (c > 1 ? c - 1 : 0), 0),
    /** Every Message-ID that arrived more than once, with its arrival times. */
    repeats: () => [...ids.entries()].filter(([, n]) => n > 1).map(([id]) => ({ id, at: arrivals.get(id) ?? [] })),
    /** Resolves once the tally reaches n (the workers report every 100 ms). */
    until: async (n: number) => {
      while (total < n) await new Promise<void>((r) => pending.push(r));
    },
    reset: () => {
      total = 0;
      firstAt = 0;
      ids.clear();
      arrivals.clear();
    },
    close: async () => {
      for (const w of forked) w.kill();
    },
  };
}

/**
 * The sink's own ceiling: a raw client on `net`, `connections` connections each pipelining MAIL, RCPT and DATA
 * (RFC 2920) and the message with the next transaction's commands, prepared bytes of the benches' size, n messages.
 * Measured until the sink has tallied all n (so its reporting is inside the figure).
 */
export async function fastCeiling(sink: Awaited<ReturnType<typeof startFastSink>>, n = 20_000, connections = 8, bytes = 6000) {
  const body = `From: news@bench.test\r\nSubject: News\r\nContent-Type: text/html\r\n\r\n${'<p>Hello there, this is the monthly news with a link.</p>\r\n'.repeat(Math.ceil(bytes / 60))}`;
  const t = Date.now();
  let next = 0;
  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect(sink.port, '127.0.0.1');
          socket.setNoDelay(true);
          let buf = '';
          let stage = 0; // 0 greeting, 1 ehlo, then per mail: waiting for 250 250 354, then 250
          let expect354 = 0;
          let current = -1;
          let done = false;
          const envelope = () => {
            if (done) return false;
            if (next >= n) {
              done = true;
              socket.end('QUIT\r\n');
              return false;
            }
            current = next++;
            return `MAIL FROM:<news@bench.test>\r\nRCPT TO:<r${current}@example.test>\r\nDATA\r\n`;
          };
          socket.on('data', (c: Buffer) => {
            buf += c.toString('latin1');
            let nl: number;
            while ((nl = buf.indexOf('\r\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 2);
              if (line[3] === '-') continue;
              if (stage === 0) {
                stage = 1;
                socket.write('EHLO bench\r\n');
              } else if (stage === 1) {
                stage = 2;
                const first = envelope();
                if (first) socket.write(first);
                expect354 = 3;
              } else if (expect354 > 0) {
                expect354--;
                if (expect354 === 0) {
                  // 354: the message, its end, and the next transaction's envelope in one write.
                  const msg = `Message-ID: <ceiling.${current}@bench.test>\r\n${body}\r\n.\r\n`;
                  socket.write(msg);
                }
              } else {
                // 250 for the end of data.
                const more = envelope();
                if (more) {
                  socket.write(more);
                  expect354 = 3;
                }
              }
            }
          });
          socket.on('close', () => resolve());
          socket.on('error', reject);
        }),
    ),
  );
  await sink.until(n);
  const rate = (n * 1000) / (Date.now() - t);
  sink.reset();
  return rate;
}
