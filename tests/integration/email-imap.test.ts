import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createEmailInbox, deleteEmailInbox, readEmailSettings, setImapSettings } from '../../app/models/email/email-inboxes.server';
import { getQuarantinedEmail, listQuarantinedEmails } from '../../app/models/email/quarantine.server';
import { getInbox } from '../../app/models/inbox/inboxes.server';
import { startImapManager, type ImapManager } from '../../server/imap-manager';
import { createTestAccount } from '../factories';
import { appendMail, startImapServer as startServer, type ImapServer } from '../helpers/imap-server';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-imap-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

const servers: ImapServer[] = [];
let manager: ImapManager | undefined;

async function startImapServer(opts: { port?: number; messages?: string[] } = {}) {
  const server = await startServer(opts);
  servers.push(server);
  return server;
}

const mail = (subject: string, id: string) => `From: Cara <cara@example.test>\r\nTo: support@example.test\r\nSubject: ${subject}\r\nMessage-ID: <${id}@example.test>\r\n\r\n${subject} body\r\n`;

const append = appendMail;

async function waitFor<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function imapInbox(port: number, opts: { name?: string } = {}) {
  const a = await createTestAccount();
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: opts.name ?? 'Mailbox', email: `support@${a.domain}.test`, mode: 'imap' });
  await setImapSettings({
    accountId: a.account.id,
    actorId: a.owner.id,
    id: inbox.id,
    input: { host: '127.0.0.1', port, secure: false, user: 'testuser', password: 'testpass', mailbox: 'INBOX' },
  });
  return { ...a, inbox };
}

const subjectsOf = async (accountId: number) =>
  (await getDb().select({ subject: schema.conversations.subject }).from(schema.conversations).where(eq(schema.conversations.accountId, accountId)).orderBy(schema.conversations.id)).map(
    (r) => r.subject,
  );

const progressOf = async (accountId: number, id: number) => readEmailSettings((await getInbox({ accountId, id }))!).imap;

afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  // Each test watches only its own inboxes.
  await getDb().delete(schema.inboxes);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('IMAP with IDLE', () => {
  it('starts at the end of the mailbox, then takes new mail the moment the server announces it', async () => {
    const imap = await startImapServer({ messages: [mail('Old mail', 'old-1')] });
    const s = await imapInbox(imap.port);
    manager = await startImapManager();
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    // The mail already there when IMAP was set up is not imported.
    await waitFor(async () => (await progressOf(s.account.id, s.inbox.id))?.lastUid === 1);
    expect(await subjectsOf(s.account.id)).toEqual([]);

    const started = Date.now();
    await append(imap.port, mail('Arrived just now', 'new-1'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 1);
    // IDLE, not polling: well under a second on loopback.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await subjectsOf(s.account.id)).toEqual(['Arrived just now']);
    // The stored position moves just after the message is ingested (a re-fetch would be deduplicated by Message-ID).
    await waitFor(async () => (await progressOf(s.account.id, s.inbox.id))?.lastUid === 2);
    const [conversation] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, s.account.id));
    expect(conversation.sourceType).toBe('email');
  });

  it('fetches only UIDs above the stored lastUid', async () => {
    const imap = await startImapServer({ messages: [mail('One', 'm1'), mail('Two', 'm2'), mail('Three', 'm3')] });
    const s = await imapInbox(imap.port);
    // As if Parley had read up to UID 1 before.
    await getDb()
      .update(schema.inboxes)
      .set({ settings: { ...readEmailSettings(s.inbox), imap: { ...(await progressOf(s.account.id, s.inbox.id))!, lastUid: 1 } } })
      .where(eq(schema.inboxes.id, s.inbox.id));
    manager = await startImapManager();
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 2);
    expect(await subjectsOf(s.account.id)).toEqual(['Two', 'Three']);
    // The position commits just after the last mail's conversation: wait for it rather than read it at once.
    await waitFor(async () => (await progressOf(s.account.id, s.inbox.id))?.lastUid === 3);
  });

  it('quarantines a mail the database refuses, moves the position past it, and the next mail arrives', async () => {
    const imap = await startImapServer();
    const s = await imapInbox(imap.port);
    manager = await startImapManager();
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    await waitFor(async () => (await progressOf(s.account.id, s.inbox.id))?.lastUid === 0);

    // A Message-ID of ~3 KB of varied three-byte characters is over the B-tree's entry limit (SQLSTATE 54000).
    let id = '';
    for (let i = 0; i < 990; i++) id += String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
    const unstorable = Buffer.from(`From: Cara <cara@example.test>\r\nTo: support@example.test\r\nSubject: Cannot be stored\r\nMessage-ID: <${id}@example.test>\r\n\r\nSecret text\r\n`);
    await append(imap.port, unstorable);
    await append(imap.port, mail('After the bad one', 'after-bad'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 1);
    expect(await subjectsOf(s.account.id)).toEqual(['After the bad one']);
    await waitFor(async () => (await progressOf(s.account.id, s.inbox.id))?.lastUid === 2);

    const quarantined = await listQuarantinedEmails({ accountId: s.account.id, inboxId: s.inbox.id });
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ via: 'imap', attempts: 1 });
    expect(quarantined[0].reason).toMatch(/^54000: /);
    const kept = await getQuarantinedEmail({ accountId: s.account.id, inboxId: s.inbox.id, id: quarantined[0].id });
    expect(kept!.raw.toString('utf8')).toContain(`Message-ID: <${id}@example.test>`);
    // Still connected: one bad mail is not a reason to drop and log in again.
    expect(manager.status().connected).toContain(s.inbox.id);
  });

  it('reconnects with backoff when the server goes away, and catches up', async () => {
    const first = await startImapServer();
    const s = await imapInbox(first.port);
    manager = await startImapManager();
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    await append(first.port, mail('Before the crash', 'c1'));
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 1);

    await first.close();
    await waitFor(() => !manager!.status().connected.includes(s.inbox.id));
    expect(manager.status().watching).toContain(s.inbox.id);
    // The server comes back on the same port with the old message and one that arrived meanwhile.
    await startImapServer({ port: first.port, messages: [mail('Before the crash', 'c1'), mail('During the outage', 'c2')] });
    await waitFor(async () => (await subjectsOf(s.account.id)).length === 2, 15_000);
    expect(await subjectsOf(s.account.id)).toEqual(['Before the crash', 'During the outage']);
  });

  it('picks up inboxes created, changed and deleted while it runs', async () => {
    const imap = await startImapServer();
    manager = await startImapManager();
    expect(manager.status().watching).toEqual([]);
    const s = await imapInbox(imap.port);
    await waitFor(() => manager!.status().connected.includes(s.inbox.id));
    // New credentials: the connection is replaced (and fails to log in, so it keeps retrying).
    await setImapSettings({
      accountId: s.account.id,
      actorId: s.owner.id,
      id: s.inbox.id,
      input: { host: '127.0.0.1', port: imap.port, secure: false, user: 'testuser', password: 'wrong', mailbox: 'INBOX' },
    });
    await waitFor(() => !manager!.status().connected.includes(s.inbox.id));
    expect(manager.status().watching).toEqual([s.inbox.id]);
    await deleteEmailInbox({ accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id });
    await waitFor(() => manager!.status().watching.length === 0);
  });
});
