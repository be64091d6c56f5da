import { spawn } from 'node:child_process';
import net from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createEmailCampaign, getCampaign, scheduleCampaign } from '../../app/models/campaigns/campaigns.server';
import { runCampaignSend } from '../../app/models/campaigns/sending.server';
import { runBulkSend } from '../../app/models/mail/bulk-send.server';
import { createSegment } from '../../app/models/crm/segments.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { runEmailOccurrence, runEmailSend } from '../../app/models/surveys/email-surveys.server';
import { publishSurvey, updateSurvey } from '../../app/models/surveys/surveys.server';
import { QUEUES } from '../../app/utils/jobs.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { publishedSurvey } from '../helpers/surveys';

/**
 * The crash window of a bulk mail, campaign or email survey (ADR 084 addendum 3). The sender writes a message's end and, in the same turn,
 * the statement that marks it sent; a SIGKILL after both (here: while the server has the end and has not answered)
 * leaves the recipient marked, so the restarted send does not mail it again. A message refused at its end (451) is
 * taken back and sent again, once.
 *
 * The stand-in server is a minimal SMTP server on `net` that counts a message by its Message-ID when its end arrives
 * and it accepts it, and can hold its answer to one message's end (or refuse it).
 */
type Verdict = 'accept' | 'hold' | 'refuse';
function startSink() {
  const accepted = new Map<string, number>();
  let decide: (id: string) => Verdict = () => 'accept';
  let onHeld: (id: string) => void = () => {};
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let inData = false;
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          const id = /^Message-ID:\s*(<[^>]+>)/im.exec(buf.subarray(0, end).toString('latin1'))?.[1] ?? '';
          buf = buf.subarray(end + 5);
          inData = false;
          const verdict = decide(id);
          if (verdict === 'hold') return onHeld(id);
          if (verdict === 'refuse') socket.write('451 4.3.0 try again later\r\n');
          else {
            accepted.set(id, (accepted.get(id) ?? 0) + 1);
            socket.write('250 2.0.0 queued\r\n');
          }
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const verb = buf.subarray(0, Math.min(4, nl)).toString('latin1').toUpperCase();
        buf = buf.subarray(nl + 2);
        if (verb === 'EHLO') socket.write('250-sink\r\n250 PIPELINING\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 2.0.0 ok\r\n');
      }
    });
  });
  return new Promise<{
    port: number;
    accepted: Map<string, number>;
    set: (d: (id: string) => Verdict, held?: (id: string) => void) => void;
    close: () => Promise<void>;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        accepted,
        set: (d, held) => {
          decide = d;
          onHeld = held ?? (() => {});
        },
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise<void>((r) => server.close(() => r()));
        },
      }),
    ),
  );
}

let sink: Awaited<ReturnType<typeof startSink>>;
beforeAll(async () => {
  sink = await startSink();
  process.env.SMTP_URL = `smtp://127.0.0.1:${sink.port}`;
  resetSingleton('config');
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  resetSingleton('config');
  await sink.close();
});

async function campaignOf(people: number) {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const who = { accountId, actorId: a.owner.id };
  const inbox = await createEmailInbox({ ...who, name: 'News', email: `news@${a.domain}.test`, mode: 'forwarding' });
  await getDb()
    .insert(schema.contacts)
    .values(Array.from({ length: people }, (_, i) => ({ accountId, firstName: `P${i}`, lastName: 'Test', email: `p${i}-${a.domain}@example.test`, country: 'FR' })));
  const segment = await createSegment({ ...who, kind: 'contact', name: 'All', isStatic: false, conditions: { country: 'FR' }, memberIds: [] });
  const campaign = await createEmailCampaign({ ...who, name: 'News', segmentId: segment.id, inboxId: inbox.id, subject: 'Hi', bodyHtml: '<p>Hello</p>', trackOpens: false, trackClicks: false });
  await scheduleCampaign({ ...who, id: campaign.id });
  return { accountId, campaignId: campaign.id };
}

const recipients = (accountId: number, campaignId: number) =>
  getDb()
    .select({ id: schema.campaignRecipients.id, status: schema.campaignRecipients.status })
    .from(schema.campaignRecipients)
    .where(and(eq(schema.campaignRecipients.accountId, accountId), eq(schema.campaignRecipients.campaignId, campaignId)))
    .orderBy(schema.campaignRecipients.id);
const idOf = (campaignId: number, recipientId: number) => new RegExp(`^<campaign\\.${campaignId}\\.${recipientId}\\.`);

/** The server accepted exactly one copy of each recipient's mail. */
function expectOneCopyEach(campaignId: number, rows: { id: number }[]) {
  for (const r of rows) {
    const copies = [...sink.accepted.entries()].filter(([id]) => idOf(campaignId, r.id).test(id));
    expect(copies.map(([, n]) => n), `recipient ${r.id}`).toEqual([1]);
  }
}

/** Runs the campaign's jobs in this process until it is sent (a job that fails on a refusal is retried, as pg-boss would). */
async function sendToTheEnd(accountId: number, campaignId: number) {
  for (let i = 0; i < 20; i++) {
    await runCampaignSend({ accountId, campaignId }).catch(() => {});
    if ((await getCampaign({ accountId, id: campaignId }))?.status === 'sent') return;
  }
  throw new Error('the campaign did not finish');
}

describe('the crash window of a campaign mail', () => {
  it('a SIGKILL after the end and its mark, before the server answered: marked, never sent again', async () => {
    const { accountId, campaignId } = await campaignOf(12);
    // The 5th recipient's end is held: the server has the whole message and does not answer; the sender dies there.
    let heldId = '';
    const held = new Promise<void>((resolve) =>
      sink.set(
        (id) => {
          const n = sink.accepted.size;
          if (!heldId && n >= 4) {
            heldId = id;
            return 'hold';
          }
          return 'accept';
        },
        () => resolve(),
      ),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/integration/campaign-send-child.ts', String(accountId), String(campaignId)], {
      env: { ...process.env, PARLEY_CAMPAIGN_SEND_LANES: '1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    await held;
    const heldRecipient = Number(/^<campaign\.\d+\.(\d+)\./.exec(heldId)![1]);
    // The mark is written beside the end, in the same turn of the sender's event loop (the end first): the row says
    // sent although the server has not answered. The kill comes once it does: the instant between the two writes is
    // the next test's (on a loaded machine the sender can be descheduled there, and a kill at once would fall in it).
    await expect.poll(async () => (await recipients(accountId, campaignId)).find((r) => r.id === heldRecipient)?.status, { timeout: 10_000 }).toBe('sent');
    child.kill('SIGKILL');
    await exited;
    // The sink counts the held message as delivered (it had its end), as a real server that queued it before answering would.
    sink.accepted.set(heldId, 1);

    // The restart, after the dead sender's lease (2 minutes, shortened here by ageing its claims).
    sink.set(() => 'accept');
    await getDb().execute(sql`update campaign_recipients set claimed_at = now() - interval '3 minutes' where account_id = ${accountId} and status = 'sending'`);
    await sendToTheEnd(accountId, campaignId);

    const rows = await recipients(accountId, campaignId);
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    expectOneCopyEach(campaignId, rows);
    expect((await getCampaign({ accountId, id: campaignId }))?.sentCount).toBe(12);
  }, 60_000);

  it('a SIGKILL in the very next tick after an end was written: that mail is marked, and nobody gets two', async () => {
    // Before ADR 084's addendum 3 the mark's statement left one event-loop turn after the end (postgres.js writes on
    // setImmediate, or later behind a busy pool connection): a kill here left a delivered mail `sending`, sent again.
    const { accountId, campaignId } = await campaignOf(12);
    sink.set(() => 'accept');
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/integration/campaign-send-child.ts', String(accountId), String(campaignId)], {
      env: { ...process.env, PARLEY_CAMPAIGN_SEND_LANES: '3', LOG_LEVEL: 'silent', CRASH_AFTER_END: '5' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.once('exit', (c, s) => r([c, s])));
    expect(signal ?? code).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 300)); // the sink reads what the kernel delivered after the kill
    const before = [...sink.accepted.keys()].filter((id) => new RegExp(`^<campaign\\.${campaignId}\\.`).test(id));
    expect(before.length).toBeGreaterThanOrEqual(5);
    const marked = (await recipients(accountId, campaignId)).filter((r) => r.status === 'sent').map((r) => r.id);
    // Every mail the server got is marked: the kill came after the statement beside its end.
    for (const id of before) expect(marked, id).toContain(Number(/^<campaign\.\d+\.(\d+)\./.exec(id)![1]));

    await getDb().execute(sql`update campaign_recipients set claimed_at = now() - interval '3 minutes' where account_id = ${accountId} and status = 'sending'`);
    await sendToTheEnd(accountId, campaignId);
    const rows = await recipients(accountId, campaignId);
    expect(rows.map((r) => r.status)).toEqual(Array(12).fill('sent'));
    expectOneCopyEach(campaignId, rows);
  }, 60_000);

  it('a message refused at its end (451) is taken back and sent again, once', async () => {
    const { accountId, campaignId } = await campaignOf(6);
    let refused = '';
    sink.set((id) => {
      if (!refused && id) {
        refused = id;
        return 'refuse';
      }
      return 'accept';
    });
    // The first job stops at the refusal (a transport failure) and releases what it holds; the next one sends the rest.
    await sendToTheEnd(accountId, campaignId);
    const rows = await recipients(accountId, campaignId);
    expect(rows.map((r) => r.status)).toEqual(Array(6).fill('sent'));
    expectOneCopyEach(campaignId, rows);
    expect(rows.some((r) => idOf(campaignId, r.id).test(refused))).toBe(true);
    expect((await getCampaign({ accountId, id: campaignId }))?.sentCount).toBe(6);
  }, 60_000);

  it('renews the claims a live run holds, so none reaches its lease while its sender is alive', async () => {
    const renewed: number[][] = [];
    let claimed = false;
    const slow = () => new Promise<void>((r) => setTimeout(r, 120));
    const stats = await runBulkSend(
      {
        accountId: 1,
        claim: async () => (claimed ? [] : ((claimed = true), [1, 2, 3, 4].map((id) => ({ id })))),
        deliver: slow,
        markSent: async () => {},
        isRefusal: () => false,
        markRefused: async () => {},
        release: async () => {},
        extendClaims: async (ids) => void renewed.push([...ids].sort()),
      },
      { rateKey: 'test:heartbeat', lanes: 1, claimHeartbeatMs: 100 },
    );
    expect(stats.sent).toBe(4);
    // Every renewal names only rows still held: all four at first, fewer as they are sent, never a finished one.
    expect(renewed.length).toBeGreaterThanOrEqual(2);
    for (const ids of renewed) expect(ids.every((id) => [1, 2, 3, 4].includes(id))).toBe(true);
    for (let i = 1; i < renewed.length; i++) expect(renewed[i]!.length).toBeLessThanOrEqual(renewed[i - 1]!.length);
    expect(renewed.at(-1)!.length).toBeLessThan(4);
  });
});

/** An email survey published to `people` tagged contacts, its first occurrence resolved into a send. */
async function surveySendOf(people: number) {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const who = { accountId, actorId: a.owner.id };
  const tag = await createTag({ ...who, name: 'Asked', color: 'blue' as never });
  const contacts = await getDb()
    .insert(schema.contacts)
    .values(Array.from({ length: people }, (_, i) => ({ accountId, firstName: `S${i}`, email: `s${i}-${a.domain}@example.test` })))
    .returning({ id: schema.contacts.id });
  await getDb().insert(schema.contactTags).values(contacts.map((c) => ({ accountId, contactId: c.id, tagId: tag.id })));
  const made = await publishedSurvey({ ...who, channel: 'email', subType: 'nps', types: ['text'], target: { tagIds: [tag.id] }, publish: false });
  await updateSurvey({ ...who, id: made.survey.id, patch: { design: { ...made.survey.design, sendFrom: 'support@example.test', subject: 'How did we do?' } }, step: 'design' });
  await publishSurvey({ ...who, id: made.survey.id });
  const [job] = await getDb().execute<{ data: { generation: number; at: string } }>(
    sql`select data from pgboss.job where name = ${QUEUES.surveyEmailOccurrence} and data->>'surveyId' = ${String(made.survey.id)} order by created_on desc limit 1`,
  );
  const occ = (await runEmailOccurrence({ accountId, surveyId: made.survey.id, generation: job!.data.generation, at: job!.data.at })) as { sendId: number };
  return { accountId, sendId: occ.sendId };
}

describe('the crash window of an email survey', () => {
  it('a SIGKILL in the very next tick after an end was written: that mail is marked with its Message-ID, and nobody gets two', async () => {
    const { accountId, sendId } = await surveySendOf(12);
    const rows = () =>
      getDb()
        .select({ id: schema.surveyEmailRecipients.id, status: schema.surveyEmailRecipients.status, token: schema.surveyEmailRecipients.token, messageId: schema.surveyEmailRecipients.messageId })
        .from(schema.surveyEmailRecipients)
        .where(and(eq(schema.surveyEmailRecipients.accountId, accountId), eq(schema.surveyEmailRecipients.sendId, sendId)))
        .orderBy(schema.surveyEmailRecipients.id);
    // The recipients are resolved by the send itself, beside its first mails (the only survey this sink sees).
    const mine = (id: string) => /^<survey-([0-9a-f]{64})@/.exec(id)?.[1];
    sink.set(() => 'accept');
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/integration/survey-send-child.ts', String(accountId), String(sendId)], {
      env: { ...process.env, PARLEY_BULK_SMTP_CONNECTIONS: '3', LOG_LEVEL: 'silent', CRASH_AFTER_END: '5' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.once('exit', (c, s) => r([c, s])));
    expect(signal ?? code).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 300)); // the sink reads what the kernel delivered after the kill
    const before = [...sink.accepted.keys()].filter((id) => mine(id));
    expect(before.length).toBeGreaterThanOrEqual(5);
    // Every mail the server got is marked, with the Message-ID it carried: the kill came after the statement beside its end.
    const marked = new Map((await rows()).filter((r) => r.status === 'sent').map((r) => [r.messageId, r]));
    for (const id of before) expect(marked.has(id), id).toBe(true);

    // The restart, after the dead sender's lease (30 s, shortened here by ageing its claims).
    await getDb().execute(sql`update survey_email_recipients set claimed_at = now() - interval '1 minute' where account_id = ${accountId} and status = 'sending'`);
    for (let i = 0; i < 10 && !(await runEmailSend({ accountId, sendId })).done; i++);
    const after = await rows();
    expect(after.map((r) => r.status)).toEqual(Array(12).fill('sent'));
    for (const r of after) {
      const copies = [...sink.accepted.entries()].filter(([id]) => mine(id) === r.token);
      expect(copies.map(([id, n]) => [id, n]), `recipient ${r.id}`).toEqual([[r.messageId, 1]]);
    }
  }, 60_000);
});
