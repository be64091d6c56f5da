import shared from 'nodemailer/lib/shared/index.js';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runBulkSend, sendRawMail, type BulkSource } from './bulk-send.server';
import { BulkSmtp } from './smtp-lanes.server';

/**
 * The held end of a bulk mail (ADR 084 addendum): the server gets the whole message but its terminating dot until the
 * sent mark's statement leaves. A connection lost before that (a SIGKILL) delivers nothing, so the recipient's resend
 * is its only copy; the loop unmarks a mail the server then refused.
 */
let server: SMTPServer;
let url = '';
const got: { to: string; body: string }[] = [];
let dataStarted = 0;
let refuseData = new Set<string>();

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 200,
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('nobody')) return cb(Object.assign(new Error('No such user'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      dataStarted++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const to = session.envelope.rcptTo[0]!.address;
        if (refuseData.has(to)) return cb(Object.assign(new Error('Message rejected'), { responseCode: 554 }));
        got.push({ to, body: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `smtp://127.0.0.1:${(server.server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const mail = (to: string) => ({ from: 'news@parley.test', to, subject: 'Hello', text: 'Hi\n.\nA line that is a lone dot.', messageId: `<${to}@parley.test>` });
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('bulk SMTP connections with a held end', () => {
  test('the server has nothing until the end is released; a lost connection in between delivers nothing', async () => {
    got.length = 0;
    const lanes = new BulkSmtp(shared.parseConnectionUrl(url), 2);
    let release!: () => void;
    const started = dataStarted;
    const sending = sendRawMail(lanes, mail('ada@example.test'), { beforeEnd: () => new Promise<void>((r) => (release = r)) });
    await until(() => dataStarted > started && typeof release === 'function');
    expect(got).toHaveLength(0);
    release();
    await sending;
    await until(() => got.length === 1);
    expect(got[0]!.to).toBe('ada@example.test');
    // Dot-stuffing is undone by the server: the lone dot line arrives as it was written.
    expect(Buffer.from(/\r\n\r\n([\s\S]*)$/.exec(got[0]!.body)![1]!.replace(/\r\n/g, ''), 'base64').toString()).toContain('\n.\n');

    // The mark fails (or the process dies) while the end is held: the server drops the message.
    const before = dataStarted;
    await expect(sendRawMail(lanes, mail('bob@example.test'), { beforeEnd: () => Promise.reject(new Error('mark not written')) })).rejects.toThrow();
    await until(() => dataStarted > before);
    await new Promise((r) => setTimeout(r, 100));
    expect(got.map((g) => g.to)).toEqual(['ada@example.test']);
    // The set carries on with a fresh connection.
    await sendRawMail(lanes, mail('cy@example.test'));
    await until(() => got.length === 2);
    expect(got[1]!.to).toBe('cy@example.test');
    lanes.close();
  });

  test('the loop marks before the end, unmarks a message the server refused at its end, and refuses a bad recipient', async () => {
    got.length = 0;
    refuseData = new Set(['rejected@example.test']);
    const lanes = new BulkSmtp(shared.parseConnectionUrl(url), 3);
    const addresses = ['a@example.test', 'b@example.test', 'nobody@example.test', 'rejected@example.test', 'c@example.test'];
    const rows = addresses.map((to, i) => ({ id: i + 1, to }));
    const state = new Map<number, string>(rows.map((r) => [r.id, 'queued']));
    const log: string[] = [];
    let claimed = false;
    const source: BulkSource<(typeof rows)[number]> = {
      accountId: 1,
      claim: async () => {
        if (claimed) return [];
        claimed = true;
        for (const r of rows) state.set(r.id, 'sending');
        return rows;
      },
      deliver: (r, held) => sendRawMail(lanes, mail(r.to), held),
      markSent: async (list) => {
        for (const m of list) {
          // The mark's statement leaves before the server has the message's end.
          expect(got.some((g) => g.to === rows[m.id - 1]!.to)).toBe(false);
          state.set(m.id, 'sent');
          log.push(`sent ${m.id} ${m.messageId}`);
        }
      },
      unmarkSent: async (ids) => {
        for (const id of ids) state.set(id, 'sending');
        log.push(`unmarked ${ids.join(',')}`);
      },
      isRefusal: (err) => /^5\d\d$/.test(String((err as { responseCode?: number }).responseCode ?? '')),
      markRefused: async (r) => void state.set(r.id, 'failed'),
      release: async (ids) => ids.forEach((id) => state.set(id, 'queued')),
    };
    const stats = await runBulkSend(source, { rateKey: 'test:held', lanes: 3 });
    expect(stats).toMatchObject({ sent: 3, refused: 2 });
    expect(got.map((g) => g.to).sort()).toEqual(['a@example.test', 'b@example.test', 'c@example.test']);
    expect([...state.entries()]).toEqual([
      [1, 'sent'],
      [2, 'sent'],
      [3, 'failed'],
      [4, 'failed'],
      [5, 'sent'],
    ]);
    // Only the message refused at its end was marked first and taken back; the bad recipient never got to its data.
    expect(log.filter((l) => l.startsWith('unmarked'))).toEqual(['unmarked 4']);
    expect(log).toContain('sent 1 <a@example.test@parley.test>');
    lanes.close();
  });
});
