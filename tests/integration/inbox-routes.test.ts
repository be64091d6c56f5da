import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { openConversation, postMessage } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { addMessage } from '../../app/models/inbox/messages.server';
import { createRole } from '../../app/models/roles/roles.server';
import { globalSearch } from '../../app/models/search/registry.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setupAccount(name = 'Support') {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name, channelType: 'email', email: `help@${a.domain}.test` });
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const open = async (subject: string, text = 'Hello there', email = 'cara@example.test') =>
    (
      await openConversation({
        accountId: a.account.id,
        inboxId: inbox.id,
        sourceType: 'email',
        subject,
        contact: { email, name: 'Cara Customer' },
        message: { kind: 'incoming', text },
      })
    ).conversation;
  const get = (p: string, cookieOverride?: string) => app.request(p, { domain: a.domain, cookie: cookieOverride ?? cookie });
  const post = (p: string, form: Record<string, string | string[]>, cookieOverride?: string) =>
    app.request(p, { domain: a.domain, cookie: cookieOverride ?? cookie, form });
  return { ...a, inbox, cookie, open, get, post };
}

/** A multipart POST as a browser's reply form sends it (the helper only speaks urlencoded). */
async function postMultipart(domain: string, cookie: string, pathname: string, fields: Record<string, string>, files: { name: string; type: string; bytes: Uint8Array }[]) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([Buffer.from(f.bytes)], { type: f.type }), f.name);
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const host = `${domain}.${process.env.APP_HOST}`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: app.port,
        path: pathname,
        method: 'POST',
        headers: { host, cookie, origin: `http://${host}`, 'content-type': encoded.headers.get('content-type')!, 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const conversationRow = async (id: number) => (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, id)))[0];
const messageRows = async (conversationId: number) =>
  getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conversationId)).orderBy(schema.messages.id);
const toastOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie'] ?? '');

describe('inbox screens: tenancy', () => {
  it("never shows another account's conversations, by list, filter, search or URL", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const mine = await a.open('Refund for order 991', 'Please refund the parcel');
    const theirs = await b.open('Secret merger plans', 'Confidential text of B');
    const list = await a.get('/inbox?status=all');
    expect(list.status).toBe(200);
    expect(list.text).toContain('Refund for order 991');
    expect(list.text).not.toContain('Secret merger plans');
    expect((await a.get('/inbox?q=Confidential')).text).not.toContain('Secret merger plans');
    expect((await a.get(`/inbox?q=%23${theirs.id}`)).text).not.toContain('Secret merger plans');
    expect((await a.get(`/inbox/${theirs.id}`)).status).toBe(404);
    expect((await a.get(`/inbox/${mine.id}`)).text).toContain('Please refund the parcel');
    // Global search: conversations group, account-scoped, by subject and by message text.
    const hits = await globalSearch({ accountId: a.account.id, q: 'parcel' });
    expect(hits.find((g) => g.group === 'Conversations')?.hits.map((h) => h.id)).toEqual([mine.id]);
    expect((await globalSearch({ accountId: a.account.id, q: 'Confidential' })).find((g) => g.group === 'Conversations')).toBeUndefined();
    expect((await globalSearch({ accountId: b.account.id, q: 'merger' })).find((g) => g.group === 'Conversations')?.hits[0].to).toBe(`/inbox/${theirs.id}`);
  });

  it("cannot change or act on another account's conversation, message or note by URL or form", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const own = await a.open('Mine', 'first', 'x@example.test');
    await a.open('Mine too', 'second', 'x@example.test');
    const theirs = await b.open('Theirs', 'their text');
    const theirNote = await postMessage({ accountId: b.account.id, actorId: b.owner.id, conversationId: theirs.id, kind: 'note', text: 'their note' });
    await postMessage({ accountId: b.account.id, actorId: b.owner.id, conversationId: theirs.id, kind: 'outgoing', text: 'their reply' });
    const before = await conversationRow(theirs.id);
    const beforeMessages = await messageRows(theirs.id);
    const [tag] = await getDb().insert(schema.tags).values({ accountId: a.account.id, name: 'vip' }).returning();

    // By URL: every intent on B's conversation id is a 404.
    type FormBody = Record<string, string | string[]>;
    for (const form of <FormBody[]>[
      { intent: 'reply', text: 'hi' },
      { intent: 'note', text: 'hi' },
      { intent: 'status', status: 'resolved' },
      { intent: 'priority', priority: 'critical' },
      { intent: 'assign', assigneeId: String(a.owner.id) },
      { intent: 'snooze', until: '2999-01-01T10:00' },
      { intent: 'move', inboxId: String(a.inbox.id) },
      { intent: 'merge', ids: String(own.id) },
      { intent: 'tag', tagId: String(tag.id) },
      { intent: 'delete' },
      { intent: 'split', messageId: String(theirNote.id) },
      { intent: 'delete-note', messageId: String(theirNote.id) },
      { intent: 'edit-message', messageId: String(theirNote.id), text: 'hacked' },
    ]) {
      expect((await a.post(`/inbox/${theirs.id}`, form)).status, String(form.intent)).toBe(404);
    }
    // By form: B's message ids through A's own conversation are not found either.
    for (const form of <FormBody[]>[
      { intent: 'split', messageId: String(theirNote.id) },
      { intent: 'delete-message', messageId: String(beforeMessages[0].id) },
      { intent: 'delete-note', messageId: String(theirNote.id) },
      { intent: 'edit-message', messageId: String(theirNote.id), text: 'hacked' },
    ]) {
      expect((await a.post(`/inbox/${own.id}`, form)).status, String(form.intent)).toBe(404);
    }
    // Merging B's conversation into A's: refused, as a conversation that does not exist.
    const merge = await a.post(`/inbox/${own.id}`, { intent: 'merge', ids: String(theirs.id) });
    expect(merge.status).toBe(400);
    expect(merge.text).toContain(`Conversation not found: #${theirs.id}`);
    // Mass actions naming B's ids: 404, even mixed with A's own.
    for (const form of <FormBody[]>[
      { intent: 'status', status: 'resolved', ids: String(theirs.id) },
      { intent: 'delete', ids: `${own.id},${theirs.id}` },
      { intent: 'move', inboxId: String(a.inbox.id), ids: [String(own.id), String(theirs.id)] },
    ]) {
      expect((await a.post('/inbox?index', form)).status, String(form.intent)).toBe(404);
    }
    // References of B used on A's conversations: 400 with the model's message.
    const foreignUser = await a.post(`/inbox/${own.id}`, { intent: 'assign', assigneeId: String(b.owner.id) });
    expect(foreignUser.status).toBe(400);
    expect(foreignUser.text).toContain('Choose a user of this account');
    const foreignInbox = await a.post('/inbox?index', { intent: 'move', inboxId: String(b.inbox.id), ids: String(own.id) });
    expect(foreignInbox.status).toBe(400);
    expect(foreignInbox.text).toContain('Inbox must be specified');

    // Nothing of B changed.
    expect(await conversationRow(theirs.id)).toEqual(before);
    expect(await messageRows(theirs.id)).toEqual(beforeMessages);
    expect((await conversationRow(own.id)).inboxId).toBe(a.inbox.id);
    expect((await conversationRow(own.id)).deletedAt).toBeNull();
  });
});

describe('inbox screens: input and permissions', () => {
  it('answers bad input with 400 and the message, keeping what was typed', async () => {
    const a = await setupAccount();
    const c = await a.open('Question');
    const cases: [Record<string, string>, string][] = [
      [{ intent: 'reply', text: '   ' }, 'Message is required'],
      [{ intent: 'reply', text: 'Typed reply kept', cc: 'not-an-address' }, 'Enter a valid email address'],
      [{ intent: 'status', status: 'sleeping' }, 'Choose a status'],
      [{ intent: 'priority', priority: 'urgent' }, 'Choose a priority'],
      [{ intent: 'snooze', until: 'tomorrow' }, 'Choose a date and time'],
      [{ intent: 'snooze', until: '2001-01-01T10:00' }, 'Choose a time in the future'],
      [{ intent: 'merge', ids: '' }, 'Choose at least two conversations to merge'],
      [{ intent: 'merge', ids: 'abc' }, 'Conversation ids are numbers such as 12, 15'],
      [{ intent: 'move', inboxId: '' }, 'Inbox must be specified'],
      [{ intent: 'tag', tagId: '999999' }, 'Choose tags of this account'],
    ];
    for (const [form, message] of cases) {
      const res = await a.post(`/inbox/${c.id}`, form);
      expect(res.status, JSON.stringify(form)).toBe(400);
      expect(res.text, JSON.stringify(form)).toContain(message);
    }
    expect((await a.post(`/inbox/${c.id}`, { intent: 'reply', text: 'Typed reply kept', cc: 'not-an-address' })).text).toContain('Typed reply kept');
    expect((await a.post(`/inbox/${c.id}`, { intent: 'fly' })).status).toBe(400);
    expect((await a.post('/inbox?index', { intent: 'status', status: 'resolved' })).text).toContain('Select at least one conversation');
    expect((await a.post('/inbox?index', { intent: 'status', status: 'resolved', ids: 'x,y' })).status).toBe(400);
    expect((await a.post('/inbox?index', { intent: 'explode', ids: String(c.id) })).status).toBe(400);
    expect((await a.get('/inbox/abc')).status).toBe(404);
    expect((await a.get('/inbox/99999999999')).status).toBe(404);
    // Nothing changed.
    expect(await conversationRow(c.id)).toMatchObject({ status: 'open', priority: 0, messageCount: 1 });
  });

  it('refuses operations to a role without manage_conversation (403), and tickets without create_ticket', async () => {
    const a = await setupAccount();
    const c = await a.open('Read only');
    const role = await createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Viewer', permissions: ['view_articles'] });
    const viewer = await createTestUser({ accountId: a.account.id, roleId: role.id, firstName: 'Vera' });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id });
    const page = await a.get(`/inbox/${c.id}`, cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your role can read this conversation but not change it.');
    expect((await a.post(`/inbox/${c.id}`, { intent: 'status', status: 'resolved' }, cookie)).status).toBe(403);
    expect((await a.post(`/inbox/${c.id}`, { intent: 'note', text: 'x' }, cookie)).status).toBe(403);
    expect((await a.post('/inbox?index', { intent: 'delete', ids: String(c.id) }, cookie)).status).toBe(403);
    expect((await a.get('/inbox/new', cookie)).status).toBe(403);
    expect((await a.post('/inbox/new', { intent: 'create', inboxId: String(a.inbox.id), email: 'q@x.test', subject: 's', message: 'm' }, cookie)).status).toBe(
      403
    );
    expect((await conversationRow(c.id)).status).toBe('open');
    expect(await messageRows(c.id)).toHaveLength(1);
    // The default agent role has both.
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    expect((await a.post(`/inbox/${c.id}`, { intent: 'status', status: 'pending' }, agentCookie)).status).toBe(302);
    expect((await a.get('/inbox/new', agentCookie)).status).toBe(200);
  });

  it('opens an internal ticket: field errors first, then the conversation', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const bad = await a.post('/inbox/new', { intent: 'create', inboxId: '', email: 'nope', name: 'Tess', subject: '', message: '' });
    expect(bad.status).toBe(400);
    for (const m of ['Inbox must be specified', 'Enter a valid email address', 'Subject is required', 'Message is required']) expect(bad.text).toContain(m);
    expect(bad.text).toContain('value="Tess"');
    const foreign = await a.post('/inbox/new', { intent: 'create', inboxId: String(b.inbox.id), email: 'tess@x.test', subject: 'Printer', message: 'Broken' });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('Inbox must be specified');
    const ok = await a.post('/inbox/new', {
      intent: 'create',
      inboxId: String(a.inbox.id),
      email: 'Tess@X.test',
      name: 'Tess Ticket',
      subject: 'Printer',
      message: 'It is broken',
    });
    expect(ok.status).toBe(302);
    expect(toastOf(ok)).toContain('__parley_toast');
    const id = Number(/\/inbox\/(\d+)$/.exec(String(ok.headers.location))![1]);
    const row = await conversationRow(id);
    expect(row).toMatchObject({ accountId: a.account.id, sourceType: 'internal_ticket', subject: 'Printer' });
    const page = await a.get(`/inbox/${id}`);
    expect(page.text).toContain('It is broken');
    expect(page.text).toContain('Ticket created by Olive Owner');
    expect(page.text).toContain('tess@x.test');
  });
});

describe('inbox screens: reply attachments', () => {
  it('stores the files of a reply with it, downloadable by the account only; refuses programs and oversized files', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const c = await a.open('Invoice copy');
    const ok = await postMultipart(a.domain, a.cookie, `/inbox/${c.id}`, { intent: 'reply', text: 'Here is the invoice' }, [
      { name: 'invoice.txt', type: 'text/plain', bytes: new TextEncoder().encode('INVOICE 42') },
    ]);
    expect(ok.status).toBe(302);
    const [reply] = (await messageRows(c.id)).filter((m) => m.kind === 'outgoing');
    const files = await getDb().select().from(schema.attachments).where(eq(schema.attachments.messageId, reply.id));
    expect(files.map((f) => [f.filename, f.size, f.accountId])).toEqual([['invoice.txt', 10, a.account.id]]);
    const page = await a.get(`/inbox/${c.id}`);
    expect(page.text).toContain(`href="/attachments/${files[0].id}"`);
    const download = await a.get(`/attachments/${files[0].id}`);
    expect(download.status).toBe(200);
    expect(download.text).toBe('INVOICE 42');
    expect((await b.get(`/attachments/${files[0].id}`)).status).toBe(404);

    const before = (await getDb().select().from(schema.attachments).where(eq(schema.attachments.accountId, a.account.id))).length;
    const program = await postMultipart(a.domain, a.cookie, `/inbox/${c.id}`, { intent: 'reply', text: 'Run this' }, [
      { name: 'setup.exe', type: 'application/octet-stream', bytes: new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03]) },
    ]);
    expect(program.status).toBe(400);
    expect(program.text).toContain('Programs and scripts cannot be attached: setup.exe');
    expect(program.text).toContain('Run this');
    const huge = await postMultipart(a.domain, a.cookie, `/inbox/${c.id}`, { intent: 'note', text: 'Big one' }, [
      { name: 'big.bin', type: 'application/octet-stream', bytes: new Uint8Array(10 * 1024 * 1024 + 1) },
    ]);
    expect(huge.status).toBe(400);
    expect(huge.text).toContain('Attachments must be at most 10 MB each');
    expect((await getDb().select().from(schema.attachments).where(eq(schema.attachments.accountId, a.account.id))).length).toBe(before);
    expect((await messageRows(c.id)).filter((m) => m.kind !== 'system')).toHaveLength(2);
  });
});

describe('inbox screens: the list and the thread', () => {
  it('keeps only non-empty filters in the URL and filters in SQL', async () => {
    const a = await setupAccount();
    const c1 = await a.open('Alpha question');
    await a.open('Beta question');
    const res = await a.get('/inbox?status=&assignee=&q=Alpha&team=');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/inbox?q=Alpha');
    const page = await a.get('/inbox?q=Alpha');
    expect(page.text).toContain('Alpha question');
    expect(page.text).not.toContain('Beta question');
    await a.post('/inbox?index', { intent: 'priority', priority: 'high', ids: String(c1.id) });
    const high = await a.get('/inbox?priority=high');
    expect(high.text).toContain('Alpha question');
    expect(high.text).not.toContain('Beta question');
  });

  it('sends the list of 50 conversations in under 60 KB of compressed HTML and CSS', async () => {
    const a = await setupAccount();
    const [tag] = await getDb().insert(schema.tags).values({ accountId: a.account.id, name: 'billing', color: 'red' }).returning();
    for (let i = 0; i < 60; i++) {
      const c = await a.open(
        `Order ${1000 + i}: the parcel arrived damaged and I want a refund`,
        `Hello, order ${1000 + i} arrived with a broken lid. `.repeat(6),
        `customer${i}@example.test`
      );
      await getDb().insert(schema.conversationTags).values({ conversationId: c.id, tagId: tag.id, accountId: a.account.id });
    }
    const page = await a.get('/inbox');
    expect(page.status).toBe(200);
    expect((page.text.match(/data-testid="conversation-\d+"/g) ?? []).length).toBe(50);
    const css = [...page.text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => fs.readFileSync(path.join('public', m[1].split('?')[0]), 'utf8'));
    expect(css.length).toBeGreaterThanOrEqual(2);
    const gz = (s: string) => zlib.gzipSync(s).length;
    const total = gz(page.text) + css.reduce((n, s) => n + gz(s), 0);
    expect(total).toBeLessThan(60 * 1024);
  });

  it('windows a 2,000-message thread: newest 50, fast, and a plain link to older ones', async () => {
    const a = await setupAccount();
    const c = await a.open('Long thread', 'message 0');
    // 1,999 more messages in one statement (the thread as a busy mailbox leaves it), then the counters.
    await getDb().execute(sql`
      insert into messages (account_id, conversation_id, kind, text, sender_user_id, created_at)
      select ${a.account.id}, ${c.id}, case when n % 2 = 1 then 'outgoing' else 'incoming' end, 'message ' || n,
             case when n % 2 = 1 then ${a.owner.id}::int end, now() - make_interval(secs => 2000 - n)
      from generate_series(1, 1999) n`);
    await getDb().update(schema.conversations).set({ messageCount: 2000 }).where(eq(schema.conversations.id, c.id));
    await a.get(`/inbox/${c.id}`);
    const started = performance.now();
    const page = await a.get(`/inbox/${c.id}`);
    expect(performance.now() - started).toBeLessThan(500);
    expect((page.text.match(/data-testid="message-\d+"/g) ?? []).length).toBe(50);
    expect(page.text).toContain('>message 1999<');
    expect(page.text).toContain('>message 1950<');
    expect(page.text).not.toContain('>message 1949<');
    const older = new RegExp(`href="/inbox/${c.id}\\?before=(\\d+)"`).exec(page.text);
    expect(older).not.toBeNull();
    const second = await a.get(`/inbox/${c.id}?before=${older![1]}`);
    expect(second.text).toContain('>message 1949<');
    expect(second.text).toContain('>message 1900<');
    expect(second.text).not.toContain('>message 1950<');
    expect(second.text).toContain('Back to the newest messages');
  });

  it('fills the reply box with a canned response through ?canned=<id>', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const c = await a.open('Where is my order?');
    const [canned] = await getDb()
      .insert(schema.cannedResponses)
      .values({ accountId: a.account.id, name: 'Shipping', message: 'Your parcel ships within 2 days.' })
      .returning();
    const [foreign] = await getDb().insert(schema.cannedResponses).values({ accountId: b.account.id, name: 'Theirs', message: 'B only text' }).returning();
    const page = await a.get(`/inbox/${c.id}?canned=${canned.id}`);
    expect(page.text).toMatch(/<textarea[^>]*>Your parcel ships within 2 days\.<\/textarea>/);
    const other = await a.get(`/inbox/${c.id}?canned=${foreign.id}`);
    expect(other.text).not.toContain('B only text');
  });

  it('sends a merged-away conversation to the one it went into; blanks remote images until asked', async () => {
    const a = await setupAccount();
    const c1 = await a.open('Target');
    const c2 = await a.open('Source');
    // The first post only shows what would be merged (ADR 035); the confirmation merges.
    const asked = await a.post(`/inbox/${c1.id}`, { intent: 'merge', ids: `#${c2.id}` });
    expect(asked.status).toBe(200);
    expect(asked.text.replace(/<!-- -->/g, "")).toContain(`Merge 1 conversation into #${c1.id}?`);
    expect((await a.get(`/inbox/${c2.id}`)).status).toBe(200);
    const merged = await a.post(`/inbox/${c1.id}`, { intent: 'merge-confirm', ids: `#${c2.id}` });
    expect(merged.status).toBe(302);
    const res = await a.get(`/inbox/${c2.id}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/inbox/${c1.id}`);
    await getDb().transaction((tx) =>
      addMessage(tx, {
        accountId: a.account.id,
        conversationId: c1.id,
        kind: 'incoming',
        text: 'see image',
        html: '<p>see <img src="https://tracker.example/pixel.png" alt="pixel"></p>',
      })
    );
    const page = await a.get(`/inbox/${c1.id}`);
    // The address is kept aside (data-remote-src) but is no image source, so the browser fetches nothing.
    expect(page.text).not.toMatch(/\ssrc="https:\/\/tracker\.example/);
    expect(page.text).toContain('Show images');
    expect((await a.get(`/inbox/${c1.id}?images=1`)).text).toMatch(/\ssrc="https:\/\/tracker\.example\/pixel\.png"/);
  });

  it('writes the operations through the models: events and system lines', async () => {
    const a = await setupAccount();
    const c = await a.open('Ops');
    const res = await a.post(`/inbox/${c.id}`, { intent: 'snooze', until: '2999-01-01T10:00' });
    expect(res.status).toBe(302);
    expect((await conversationRow(c.id)).status).toBe('snoozed');
    const events = await getDb()
      .select({ n: sql<number>`count(*)::int` })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'conversation_updated')));
    expect(events[0].n).toBe(1);
  });
});
