import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { getChannelHealth } from '../../app/models/channels/health.server';
import { checkMailServer, createEmailInbox, readEmailSettings, setImapSettings, trustServerCertificate } from '../../app/models/email/email-inboxes.server';
import { getInbox } from '../../app/models/inbox/inboxes.server';
import { startImapManager, type ImapManager } from '../../server/imap-manager';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { appendMail, startImapServer as startServer } from '../helpers/imap-server';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-imap-health-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

const closers: (() => Promise<void>)[] = [];
let manager: ImapManager | undefined;
let app: Awaited<ReturnType<typeof startTestApp>> | undefined;

/** Hoodiecrow: a real IMAP4rev1 server with IDLE, in memory (tests/helpers/imap-server.ts). */
async function startImapServer() {
  const server = await startServer();
  closers.push(server.close);
  return { port: server.port };
}

const append = appendMail;

async function waitFor<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function imapInbox(port: number, input: { password?: string; secure?: boolean } = {}) {
  const a = await createTestAccount();
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Mailbox', email: `support@${a.domain}.test`, mode: 'imap' });
  await setImapSettings({
    accountId: a.account.id,
    actorId: a.owner.id,
    id: inbox.id,
    input: { host: '127.0.0.1', port, secure: input.secure ?? false, security: input.secure ? 'tls' : 'none', user: 'testuser', password: input.password ?? 'testpass', mailbox: 'INBOX' },
  });
  return { ...a, inbox };
}

/** The body goes base64-encoded, as the real-world sample's did: its decoded bytes may hold NUL, the IMAP literal does not. */
const mail = (subject: string, id: string, body = `${subject} body`) =>
  `From: Cara <cara@example.test>\r\nTo: support@example.test\r\nSubject: ${subject}\r\nMessage-ID: <${id}@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(body).toString('base64')}\r\n`;

const subjectsOf = async (accountId: number) =>
  (await getDb().select({ subject: schema.conversations.subject }).from(schema.conversations).where(eq(schema.conversations.accountId, accountId)).orderBy(schema.conversations.id)).map(
    (r) => r.subject,
  );
const imapHealth = async (accountId: number, inboxId: number) => (await getChannelHealth({ accountId, inboxId })).find((h) => h.part === 'imap');

afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  await getDb().delete(schema.inboxes);
});
afterAll(async () => {
  await app?.close();
  for (const close of closers) await close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('IMAP that never stalls', () => {
  it('a mail with NUL bytes is stored cleaned, the position moves past it, and the next mail arrives within seconds (no reconnect loop)', async () => {
    const imap = await startImapServer();
    const s = await imapInbox(imap.port);
    manager = await startImapManager();
    await waitFor(async () => readEmailSettings((await getInbox({ accountId: s.account.id, id: s.inbox.id }))!).imap?.lastUid === 0);
    await append(imap.port, mail('Has NUL', 'nul-imap', 'Hello\u0000 there'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 1);
    const started = Date.now();
    await append(imap.port, mail('Ordinary', 'ordinary-imap'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 2, 5000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await subjectsOf(s.account.id)).toEqual(['Has NUL', 'Ordinary']);
    const [first] = await getDb()
      .select({ text: schema.messages.text })
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.kind, 'incoming')))
      .orderBy(schema.messages.id);
    expect(first.text).toBe('Hello there');
    // The position moves once the second mail is stored (its own commit, just after the conversation's).
    await waitFor(async () => readEmailSettings((await getInbox({ accountId: s.account.id, id: s.inbox.id }))!).imap?.lastUid === 2);
    expect(await imapHealth(s.account.id, s.inbox.id)).toMatchObject({ failingSince: null, lastError: null });
  });

  it('a wrong password is the channel’s error, in plain words, found by the test on save and by the reader', async () => {
    const imap = await startImapServer();
    const s = await imapInbox(imap.port, { password: 'wrong' });
    const test = await checkMailServer({ accountId: s.account.id, id: s.inbox.id, part: 'imap' });
    expect(test).toMatchObject({ ok: false, error: expect.stringMatching(/^The mailbox refused the user name or password/) });
    // The reader records it too (the row the test wrote is removed first).
    await getDb().delete(schema.channelHealth).where(eq(schema.channelHealth.inboxId, s.inbox.id));
    // The server log, as the reader writes it.
    const lines: string[] = [];
    const store = (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons!;
    const logger = store.get('logger');
    store.set('logger', pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(line) }));
    try {
      manager = await startImapManager();
      const health = await waitFor(async () => {
        const h = await imapHealth(s.account.id, s.inbox.id);
        return h?.failingSince ? h : null;
      });
      expect(health.lastError).toMatch(/^The mailbox refused the user name or password/);
      expect(health.failingSince).toBeInstanceOf(Date);
      // The page shows the server's answer to the admin; the log has a code and Parley's words only.
      const failed = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'imap connection failed');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed[0]).toMatchObject({ reason: 'The mailbox refused the user name or password', errorCode: expect.any(String) });
      expect(failed[0]).not.toHaveProperty('err');
      const all = lines.join('\n');
      expect(all).not.toContain('Login failed');
      expect(all).not.toContain('wrong');
    } finally {
      store.set('logger', logger);
    }
  });

  it('a frozen connection (no FIN, no answer) is detected and mail resumes within a minute, with the default heartbeat', async () => {
    const imap = await startImapServer();
    const proxy = await startTcpProxy({ targetPort: imap.port });
    closers.push(proxy.close);
    const s = await imapInbox(proxy.port);
    manager = await startImapManager();
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    await waitFor(async () => readEmailSettings((await getInbox({ accountId: s.account.id, id: s.inbox.id }))!).imap?.lastUid === 0);
    proxy.freeze();
    const frozenAt = Date.now();
    const frozenConnections = proxy.open();
    expect(frozenConnections).toBe(1);
    // Straight to the server, not through the frozen connection.
    await append(imap.port, mail('While frozen', 'frozen-1'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 1, 60_000);
    const resumedAfter = Date.now() - frozenAt;
    expect(resumedAfter).toBeLessThan(60_000);
    console.info(`frozen IMAP connection: mail resumed after ${(resumedAfter / 1000).toFixed(1)} s`);
  }, 70_000);

  it('a self-signed server is refused, its fingerprint offered, and accepted once the admin trusts that fingerprint (for this inbox only)', async () => {
    const imap = await startImapServer();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cert-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '2', '-subj', '/CN=imap.private.test'], {
      stdio: 'ignore',
    });
    const expected = execFileSync('openssl', ['x509', '-in', `${dir}/cert.pem`, '-noout', '-fingerprint', '-sha256']).toString().split('=')[1].trim();
    const proxy = await startTcpProxy({ targetPort: imap.port, tls: { key: fs.readFileSync(`${dir}/key.pem`, 'utf8'), cert: fs.readFileSync(`${dir}/cert.pem`, 'utf8') } });
    closers.push(proxy.close);
    const s = await imapInbox(proxy.port, { secure: true });

    const refused = await checkMailServer({ accountId: s.account.id, id: s.inbox.id, part: 'imap' });
    expect(refused).toMatchObject({ ok: false, error: "The server's certificate is not trusted (self-signed or from a private authority)" });
    const offered = (await imapHealth(s.account.id, s.inbox.id))!.offeredCertificate!;
    expect(offered.fingerprint).toBe(expected);
    expect(offered.subject).toContain('CN=imap.private.test');

    // A wrong fingerprint trusts nothing; the one shown does.
    const who = { accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id, part: 'imap' as const };
    expect(await trustServerCertificate({ ...who, fingerprint: expected.replace(/^../, '00') })).toBe(false);
    expect(await trustServerCertificate({ ...who, fingerprint: expected.toLowerCase().replace(/:/g, '') })).toBe(true);
    expect(await checkMailServer({ accountId: s.account.id, id: s.inbox.id, part: 'imap' })).toEqual({ ok: true });

    manager = await startImapManager();
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    await waitFor(async () => readEmailSettings((await getInbox({ accountId: s.account.id, id: s.inbox.id }))!).imap?.lastUid === 0);
    await append(imap.port, mail('Over pinned TLS', 'pinned-1'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 1);
    expect((await imapHealth(s.account.id, s.inbox.id))!.failingSince).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('channel health in the product', () => {
  it('a wrong IMAP password saved on the settings page: the connection is tested, the error shows on the page, beside the inbox and in the shell; admins are told when a working channel fails', async () => {
    app = await startTestApp();
    const imap = await startImapServer();
    const s = await imapInbox(imap.port);
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const post = (form: Record<string, string>) => app!.request(`/settings/emails/${s.inbox.id}`, { domain: s.domain, cookie, form });
    const follow = async (res: { status: number; headers: Record<string, unknown> }) => {
      expect(res.status).toBe(302);
      const toast = ([] as string[])
        .concat((res.headers['set-cookie'] as string[] | undefined) ?? [])
        .map((c) => c.split(';')[0])
        .find((c) => c.startsWith('__parley_toast='));
      return { location: String(res.headers.location), html: (await app!.request(String(res.headers.location), { domain: s.domain, cookie: [cookie, toast].filter(Boolean).join('; ') })).text };
    };
    const form = { intent: 'imap', host: '127.0.0.1', port: String(imap.port), security: 'none', user: 'testuser', mailbox: 'INBOX' };

    // The right password: tested, "Inbox Updated", back to the list; the channel has worked.
    const good = await follow(await post({ ...form, password: 'testpass' }));
    expect(good.location).toBe('/settings/emails');
    expect(good.html).toContain('Inbox Updated');
    expect((await imapHealth(s.account.id, s.inbox.id))!.lastSuccessAt).toBeInstanceOf(Date);

    // A working channel that starts failing notifies its admins, once.
    manager = await startImapManager();
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    await setImapSettings({ accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id, input: { ...form, port: imap.port, secure: false, security: 'none', password: 'wrong' } });
    await waitFor(async () => (await imapHealth(s.account.id, s.inbox.id))?.failingSince);
    const notes = await waitFor(async () => {
      const rows = await getDb().select().from(schema.notifications).where(eq(schema.notifications.accountId, s.account.id));
      return rows.length > 0 ? rows : null;
    });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ userId: s.owner.id, title: 'Mailbox: Reading mail (IMAP) is failing', link: `/settings/emails/${s.inbox.id}` });
    expect(notes[0].body).toMatch(/^The mailbox refused the user name or password/);

    // Saved through the page with the wrong password: not a plain "Inbox Updated", the page says why.
    const bad = await follow(await post({ ...form, password: 'wrong-again' }));
    expect(bad.location).toBe(`/settings/emails/${s.inbox.id}`);
    expect(bad.html).toContain('Inbox Updated, but Parley cannot reach the mailbox: The mailbox refused the user name or password');
    expect(bad.html).toContain('data-testid="health-imap-error"');
    expect(bad.html).toContain('data-testid="failing-channels"');

    const inbox = (await app!.request('/inbox', { domain: s.domain, cookie })).text;
    expect(inbox).toContain('data-testid="failing-channels"');
    expect(inbox).toContain('data-testid="inbox-failing"');
    const banner = /data-testid="failing-channels">([\s\S]*?)<\/div>/.exec(inbox)![1].replace(/<!-- -->/g, '');
    expect(banner).toContain('Mailbox (Reading mail (IMAP))</a> — The mailbox refused the user name or password');
  });
});

describe('one outage, one notification', () => {
  it('an IMAP server that goes away and comes back several times within one outage notifies once when it fails and once when it works again; a second outage does the same', async () => {
    let server = await startServer();
    const port = server.port;
    const s = await imapInbox(port);
    const settleMs = 3000;
    manager = await startImapManager({ recoverySettleMs: settleMs });
    await waitFor(async () => (await imapHealth(s.account.id, s.inbox.id))?.lastSuccessAt);
    const titles = async () =>
      (await getDb().select().from(schema.notifications).where(eq(schema.notifications.accountId, s.account.id)).orderBy(schema.notifications.id)).map((n) => n.title);
    const connected = () => waitFor(() => manager!.status().connected.includes(s.inbox.id), 30_000);
    /** The server goes away until the reader has failed to reach it, then comes back on the same port. */
    const outage = async () => {
      const before = (await imapHealth(s.account.id, s.inbox.id))?.lastErrorAt?.getTime() ?? 0;
      await server.close();
      await waitFor(async () => ((await imapHealth(s.account.id, s.inbox.id))?.lastErrorAt?.getTime() ?? 0) > before, 30_000);
      server = await startServer({ port });
    };

    // One episode: down, back for a moment (reconnected, less than the settle time), down again, three times over.
    for (let i = 0; i < 3; i++) {
      await outage();
      await connected();
      await new Promise((r) => setTimeout(r, 300));
      expect((await imapHealth(s.account.id, s.inbox.id))!.failingSince).toBeInstanceOf(Date);
    }
    expect(await titles()).toEqual(['Mailbox: Reading mail (IMAP) is failing']);
    // It stays up: once it has worked for the settle time, the episode ends, with one notice.
    await waitFor(async () => (await imapHealth(s.account.id, s.inbox.id))?.failingSince === null, 30_000);
    await waitFor(async () => (await titles()).length === 2);
    const notes = await getDb().select().from(schema.notifications).where(eq(schema.notifications.accountId, s.account.id)).orderBy(schema.notifications.id);
    expect(notes[1]).toMatchObject({ userId: s.owner.id, title: 'Mailbox: Reading mail (IMAP) is working again', link: `/settings/emails/${s.inbox.id}` });
    expect(notes[1].body).toMatch(/^The last error was: /);

    // A second episode, after the first has ended: told again, once each way.
    await outage();
    await waitFor(async () => (await titles()).length === 4, 30_000);
    expect(await titles()).toEqual([
      'Mailbox: Reading mail (IMAP) is failing',
      'Mailbox: Reading mail (IMAP) is working again',
      'Mailbox: Reading mail (IMAP) is failing',
      'Mailbox: Reading mail (IMAP) is working again',
    ]);
    await new Promise((r) => setTimeout(r, settleMs));
    expect(await titles()).toHaveLength(4);
    await server.close();
  }, 180_000);
});
