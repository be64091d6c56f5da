import crypto from 'node:crypto';
import http from 'node:http';
import nodemailer from 'nodemailer';
import postgres from 'postgres';
import WebSocket from 'ws';
import type { Cluster } from '../../scripts/cluster';

/**
 * The traffic the failure drills run under (ADR 143): mail arriving over SMTP through the proxy's SMTP port (spread over
 * the web nodes), customers chatting through the widget API, agents' sockets and page loads through the proxy, and the
 * engine working 20 active workflows on every new conversation. Every client behaves as a real one does: a mail the
 * server did not acknowledge (451, a cut connection) is sent again later, as an MTA does; a widget message without an
 * answer is sent again with the same key, as the widget does; a socket that closes reconnects.
 *
 * What was acknowledged is recorded, so that a drill can count what was sent, stored, lost and doubled.
 */

export const WORKFLOWS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Fixture = {
  domain: string;
  accountId: number;
  cookie: string;
  mailTo: string;
  webInboxId: number;
  noteRuleId: number;
  ruleIds: number[];
};

/**
 * The drills' account, made through Parley's own models in this process, on the cluster's database: an email inbox, a
 * web inbox, 20 active workflows on conversation_created (19 tag it, one leaves a note: a note twice would show), and
 * an agent's session.
 */
export async function prepareAccount(c: Cluster, opts: { domain?: string } = {}): Promise<Fixture> {
  const { createTestAccount } = await import('../factories');
  const { createEmailInbox } = await import('../../app/models/email/email-inboxes.server');
  const { forwardingAddress } = await import('../../app/models/email/addresses.server');
  const { createWebInbox } = await import('../../app/models/channels/messenger-settings.server');
  const { createTag } = await import('../../app/models/productivity/tags.server');
  const { sessionCookie } = await import('../helpers/http');
  const { getDb, schema } = await import('../../db/client');

  const a = await createTestAccount({ domain: opts.domain ?? 'drills' });
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: 'support@drills.test', mode: 'forwarding' });
  const web = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website' });
  const ruleIds: number[] = [];
  let noteRuleId = 0;
  for (let i = 1; i <= WORKFLOWS; i++) {
    const note = i === WORKFLOWS;
    const tag = note ? null : await createTag({ accountId: a.account.id, actorId: a.owner.id, name: `drill-${i}`, color: 'green' });
    const [rule] = await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: a.account.id,
        kind: 'workflow',
        name: note ? 'Note every new conversation' : `Tag ${i}`,
        event: 'conversation_created',
        isActive: true,
        actions: note ? [{ type: 'leave_note', note: 'Seen by the drill workflow' }] : [{ type: 'assign_tag', tagIds: [tag!.id] }],
      })
      .returning();
    ruleIds.push(rule.id);
    if (note) noteRuleId = rule.id;
  }
  // The engines hold the rules in memory (ADR 031) and hear of changes by NOTIFY: give them a moment.
  await sleep(1500);
  return {
    domain: a.domain,
    accountId: a.account.id,
    cookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    mailTo: forwardingAddress(inbox)!,
    webInboxId: web.id,
    noteRuleId,
    ruleIds,
  };
}

/** An IMAP inbox of the drills' account, reading the hoodiecrow mailbox on `port` (the web nodes hear of it by NOTIFY). */
export async function prepareImapInbox(c: Cluster, f: Fixture, port: number) {
  const { createEmailInbox, setImapSettings } = await import('../../app/models/email/email-inboxes.server');
  const { getDb, schema } = await import('../../db/client');
  const { eq } = await import('drizzle-orm');
  const [owner] = await getDb().select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.accountId, f.accountId)).limit(1);
  const inbox = await createEmailInbox({ accountId: f.accountId, actorId: owner.id, name: 'Mailbox', email: 'mailbox@drills.test', mode: 'imap' });
  await setImapSettings({
    accountId: f.accountId,
    actorId: owner.id,
    id: inbox.id,
    input: { host: '127.0.0.1', port, secure: false, security: 'none', user: 'testuser', password: 'testpass', mailbox: 'INBOX' },
  });
  return inbox.id;
}

function request(
  c: Cluster,
  opts: { method?: string; path: string; host?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port: c.ports.proxy, method: opts.method ?? 'GET', path: opts.path, headers: { host: opts.host ?? c.appHost, ...opts.headers }, timeout: 20_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    req.end(opts.body);
  });
}

export type DrillFigures = {
  mails: { sent: number; acknowledged: number; refusedThenRetried: number };
  chats: { messages: number; acknowledged: number; retried: number };
  pages: { loads: number; statuses: Record<number, number> };
  sockets: { connected: number; closes: number; maxReconnectS: number; reconnectsOver5s: number };
  /** Time from a chat's first message acknowledged to every connected agent socket having its conversation, p95 (ms). */
  liveP95Ms: number | null;
};

/**
 * One drill's traffic: `mails` emails over SMTP at about `mailRate` a second and `chats` widget chats (two messages
 * each), while agent sockets stay connected and an agent loads the inbox page a few times a second. `stop()` waits
 * until every client has been acknowledged (retrying as real clients do) and returns the figures; `acked` is what a
 * drill checks against the database.
 */
export class Traffic {
  readonly mailIds: string[] = [];
  readonly chatKeys: string[] = [];
  readonly firstChatKeys: string[] = [];
  private stopped = false;
  private sockets: AgentSocket[] = [];
  private work: Promise<unknown>[] = [];
  private pageStatuses = new Map<number, number>();
  private pageLoads = 0;
  private mailRefusals = 0;
  private chatRetries = 0;
  private chatAcked = 0;
  private liveMs: number[] = [];
  /** Customers' addresses differ from one drill to the next. */
  private readonly seed = crypto.randomInt(1, 65_000);

  constructor(
    private readonly c: Cluster,
    private readonly f: Fixture,
    private readonly name: string,
  ) {}

  async start(opts: { mails: number; mailRate: number; chats: number; chatRate: number; sockets: number }) {
    this.sockets = Array.from({ length: opts.sockets }, () => new AgentSocket(this.c, this.f));
    await Promise.all(this.sockets.map((s) => s.opened()));
    this.work.push(this.sendMails(opts.mails, opts.mailRate), this.chat(opts.chats, opts.chatRate), this.loadPages());
  }

  /** Waits for every mail and chat message to be acknowledged (up to `limitS`), then closes the sockets. */
  async stop(limitS = 180): Promise<DrillFigures> {
    const done = Promise.all(this.work.slice(0, 2));
    const finished = await Promise.race([done.then(() => true), sleep(limitS * 1000).then(() => false)]);
    this.stopped = true;
    await Promise.race([Promise.all(this.work), sleep(5_000)]);
    const sockets = this.sockets;
    for (const s of sockets) s.close();
    if (!finished) throw new Error(`${this.name}: the clients were not all acknowledged within ${limitS} s`);
    const reconnects = sockets.flatMap((s) => s.reconnectMs);
    const sorted = [...this.liveMs].sort((a, b) => a - b);
    return {
      mails: { sent: this.mailIds.length, acknowledged: this.mailIds.length, refusedThenRetried: this.mailRefusals },
      chats: { messages: this.chatKeys.length, acknowledged: this.chatAcked, retried: this.chatRetries },
      pages: { loads: this.pageLoads, statuses: Object.fromEntries(this.pageStatuses) },
      sockets: {
        connected: sockets.length,
        closes: sockets.reduce((n, s) => n + s.closes, 0),
        maxReconnectS: reconnects.length ? Math.max(...reconnects) / 1000 : 0,
        reconnectsOver5s: reconnects.filter((ms) => ms > 5000).length,
      },
      liveP95Ms: sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] : null,
    };
  }

  /** Mail as an MTA sends it: one message at a time per connection, a 4xx or a cut connection tried again a second later. */
  private async sendMails(count: number, rate: number) {
    const transport = () => nodemailer.createTransport({ host: '127.0.0.1', port: this.c.ports.proxySmtp, secure: false, ignoreTLS: true, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    const sendOne = async (i: number) => {
      const id = `${this.name}-${i}-${crypto.randomBytes(4).toString('hex')}@sender.drills.test`;
      for (;;) {
        const t = transport();
        try {
          await t.sendMail({
            from: `Customer ${i} <customer-${this.name}-${i}@example.test>`,
            to: this.f.mailTo,
            subject: `${this.name}: order ${i}`,
            messageId: `<${id}>`,
            text: `Hello, this is mail ${i} of the ${this.name} drill.`,
          });
          // Stored as the Message-ID header reads, in its angle brackets.
          this.mailIds.push(`<${id}>`);
          return;
        } catch {
          this.mailRefusals++;
          await sleep(1000);
        } finally {
          t.close();
        }
      }
    };
    const sending: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      sending.push(sendOne(i));
      await sleep(1000 / rate);
    }
    await Promise.all(sending);
  }

  /** Customers chatting: each opens a session and sends two messages, each with its key, retried until answered. */
  private async chat(count: number, rate: number) {
    const post = async (path: string, body: Buffer | string, headers: Record<string, string>) => {
      for (let attempt = 0; ; attempt++) {
        const res = await request(this.c, { method: 'POST', path, body, headers });
        // The widget's own limit per visitor (a retry storm would meet it too): wait as the answer says.
        if (res.status === 429) {
          this.chatRetries++;
          await sleep(Number(res.headers['retry-after'] ?? 2) * 1000);
          continue;
        }
        if (res.status >= 200 && res.status < 300) return JSON.parse(res.body) as Record<string, unknown>;
        if (res.status >= 400 && res.status < 500) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
        this.chatRetries++;
        await sleep(Math.min(4000, 500 * 2 ** Math.min(attempt, 3)));
      }
    };
    const customer = async (i: number) => {
      // Each customer from an address of their own (the proxy appends it to X-Forwarded-For; the nodes trust the
      // proxy on loopback), as customers on the internet are: the per-address limits see one customer each.
      const from = { 'x-forwarded-for': `10.${(this.seed >> 8) & 255}.${this.seed & 255}.${(i % 250) + 1}` };
      const session = await post('/public/widget/session', JSON.stringify({ inboxId: this.f.webInboxId }), { 'content-type': 'application/json', ...from });
      const token = String(session.token);
      for (let m = 0; m < 2; m++) {
        const key = crypto.randomUUID();
        this.chatKeys.push(key);
        if (m === 0) this.firstChatKeys.push(key);
        const form = new URLSearchParams({ text: m === 0 ? `${this.name}: chat ${i}, where is my order?` : 'It was due on Monday.', clientId: key }).toString();
        const sent = await post('/public/widget/messages', form, { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}`, ...from });
        this.chatAcked++;
        if (m === 0) {
          const conversationId = Number(sent.conversationId);
          const at = Date.now();
          void Promise.all(this.sockets.filter((s) => s.isOpen()).map((s) => s.seen(conversationId))).then((ok) => {
            if (ok.every(Boolean)) this.liveMs.push(Date.now() - at);
          });
        }
        await sleep(300);
      }
    };
    const chatting: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      chatting.push(customer(i));
      await sleep(1000 / rate);
    }
    await Promise.all(chatting);
  }

  /** An agent's page loads through the proxy, a few a second (GETs: what the proxy retries on another node). */
  private async loadPages() {
    while (!this.stopped) {
      const res = await request(this.c, { path: '/inbox', host: `${this.f.domain}.${this.c.appHost}`, headers: { cookie: this.f.cookie } });
      this.pageLoads++;
      this.pageStatuses.set(res.status, (this.pageStatuses.get(res.status) ?? 0) + 1);
      await sleep(250);
    }
  }
}

/** An agent's websocket through the proxy with the inbox list open, reconnecting as the inbox's script does. */
class AgentSocket {
  private ws: WebSocket | null = null;
  private open = false;
  private closedAt = 0;
  private ended = false;
  closes = 0;
  readonly reconnectMs: number[] = [];
  private heard = new Set<number>();
  private waiters = new Map<number, () => void>();
  private firstOpen: Promise<void>;
  private resolveFirst!: () => void;

  constructor(
    private readonly c: Cluster,
    private readonly f: Fixture,
  ) {
    this.firstOpen = new Promise((r) => (this.resolveFirst = r));
    this.connect();
  }

  opened() {
    return this.firstOpen;
  }
  isOpen() {
    return this.open;
  }

  /** Whether this socket hears of the conversation within 10 s. */
  seen(conversationId: number): Promise<boolean> {
    if (this.heard.has(conversationId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(conversationId);
        resolve(false);
      }, 10_000);
      this.waiters.set(conversationId, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private connect() {
    if (this.ended) return;
    const ws = new WebSocket(`ws://127.0.0.1:${this.c.ports.proxy}/ws`, { headers: { host: `${this.f.domain}.${this.c.appHost}`, cookie: this.f.cookie } });
    this.ws = ws;
    ws.on('open', () => {
      this.open = true;
      if (this.closedAt) this.reconnectMs.push(Date.now() - this.closedAt);
      this.closedAt = 0;
      this.resolveFirst();
    });
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as { type: string; rows?: { id?: unknown }[] };
      // The inbox page watches the list (ADR 045): new and changed conversations come as rows of inbox.patch.
      if (msg.type === 'hello') ws.send(JSON.stringify({ type: 'watch', topic: 'inbox', filters: {} }));
      if (msg.type === 'inbox.patch') {
        for (const row of msg.rows ?? []) {
          const id = Number(row.id);
          this.heard.add(id);
          this.waiters.get(id)?.();
        }
      }
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      if (this.open) {
        this.closes++;
        this.closedAt = Date.now();
      }
      this.open = false;
      if (!this.ended) setTimeout(() => this.connect(), 250);
    });
  }

  close() {
    this.ended = true;
    this.ws?.close();
  }
}

/**
 * What the database holds of a drill's traffic, read on the primary (whichever server that is now): for each mail and
 * chat message acknowledged, how many times it was stored; for each new conversation, how many times each workflow
 * acted. Waits (up to `limitS`) for the engines to finish what was queued.
 */
export async function countStored(c: Cluster, f: Fixture, t: Traffic, limitS = 150) {
  const sql = postgres(c.serverUrl(), { max: 2, onnotice: () => {} });
  try {
    const mails = await sql<{ id: string; n: number }[]>`
      select m.email_message_id as id, count(*)::int as n from messages m
      where m.account_id = ${f.accountId} and m.email_message_id = any(${t.mailIds}::text[]) group by 1`;
    const chats = await sql<{ key: string; n: number }[]>`
      select split_part(m.external_id, ':', 3) as key, count(*)::int as n from messages m
      where m.account_id = ${f.accountId} and m.external_id like 'widget:%' and split_part(m.external_id, ':', 3) = any(${t.chatKeys}::text[]) group by 1`;
    const conversations = await sql<{ id: number }[]>`
      select distinct m.conversation_id as id from messages m
      where m.account_id = ${f.accountId}
        and (m.email_message_id = any(${t.mailIds}::text[]) or split_part(m.external_id, ':', 3) = any(${t.firstChatKeys}::text[]))`;
    const ids = conversations.map((r) => r.id);
    const expectedActions = ids.length * WORKFLOWS;
    const t0 = Date.now();
    let actions: { done: number; doubled: number; notesDoubled: number } = { done: 0, doubled: 0, notesDoubled: 0 };
    for (;;) {
      const [row] = await sql<{ done: number; doubled: number }[]>`
        select count(*)::int as done, coalesce(sum(greatest(n - 1, 0)), 0)::int as doubled from (
          select count(*) as n from automation_run_log
          where account_id = ${f.accountId} and step = 'action_applied' and conversation_id = any(${ids}::int[])
          group by rule_id, conversation_id) x`;
      const [notes] = await sql<{ doubled: number }[]>`
        select coalesce(sum(greatest(n - 1, 0)), 0)::int as doubled from (
          select count(*) as n from messages where account_id = ${f.accountId} and kind = 'note' and text = 'Seen by the drill workflow'
            and conversation_id = any(${ids}::int[]) group by conversation_id) x`;
      actions = { done: row.done, doubled: row.doubled, notesDoubled: notes.doubled };
      if (row.done >= expectedActions || Date.now() - t0 > limitS * 1000) break;
      await sleep(1000);
    }
    const stored = new Map(mails.map((r) => [r.id, r.n]));
    const storedChats = new Map(chats.map((r) => [r.key, r.n]));
    return {
      mails: { acknowledged: t.mailIds.length, stored: stored.size, lost: t.mailIds.filter((id) => !stored.has(id)).length, doubled: [...stored.values()].filter((n) => n > 1).length },
      chats: {
        acknowledged: t.chatKeys.length,
        stored: storedChats.size,
        lost: t.chatKeys.filter((k) => !storedChats.has(k)).length,
        doubled: [...storedChats.values()].filter((n) => n > 1).length,
      },
      actions: { conversations: ids.length, expected: expectedActions, done: actions.done, doubled: actions.doubled + actions.notesDoubled, drainedS: (Date.now() - t0) / 1000 },
    };
  } finally {
    await sql.end({ timeout: 2 });
  }
}
