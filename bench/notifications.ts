/**
 * Agents' notifications (issue 10, ADR 034): from the domain event to the agent's websocket, with the engine running
 * inline as in `npm start`. An owner assigns a conversation to an agent; the clock stops when the agent's socket
 * hears `notification`. The time includes the assignment's own write and commit. Target: p95 < 200 ms.
 * Run: npm run bench:notifications   (BENCH_NOTIFICATIONS=200)
 */
import http from 'node:http';
import WebSocket from 'ws';
import { benchDatabase, percentile } from './support';

const RUNS = Number(process.env.BENCH_NOTIFICATIONS ?? 200);
const CEILING_MS = 200;
const fmt = (n: number) => n.toFixed(1).padStart(7);

async function main() {
  const server = await benchDatabase('notifications');
  const { closeDb, getDb } = await import('../db/client');
  const { QUEUES, stopBoss } = await import('../app/utils/jobs.server');
  const { sql } = await import('drizzle-orm');
  const { startEngine } = await import('../engine/index');
  const { startLiveServer } = await import('../server/ws');
  const { createTestAccount, createTestUser } = await import('../tests/factories');
  const { sessionCookie } = await import('../tests/helpers/http');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { assignConversations, openConversation } = await import('../app/models/inbox/conversations.server');

  const { account, owner } = await createTestAccount({ domain: 'benchnotify' });
  const agent = await createTestUser({ accountId: account.id, roleKind: 'agent', firstName: 'Ana' });
  const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Desk', channelType: 'internal' });
  const conversations: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const opened = await getDb().transaction((tx) =>
      openConversation({ tx, accountId: account.id, inboxId: inbox.id, sourceType: 'internal_ticket', subject: `Bench ${i}`, contact: { email: `c${i}@bench.test` }, message: { kind: 'incoming', text: 'hi' } }),
    );
    conversations.push(opened.conversation.id);
  }

  const engine = await startEngine({ mode: 'inline' });
  const httpServer = http.createServer((_req, res) => res.writeHead(404).end());
  const live = await startLiveServer(httpServer);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as { port: number }).port;
  const host = `${account.domain}.${process.env.APP_HOST}`;
  const cookie = await sessionCookie({ domain: account.domain, accountId: account.id, userId: agent.id });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { host, cookie } });
  const waiting = new Map<string, (at: bigint) => void>();
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    if (m.type !== 'notification') return;
    const at = process.hrtime.bigint();
    const key = String(m.title).match(/#(\d+)/)?.[1] ?? '';
    waiting.get(key)?.(at);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  // Let the creation events drain first (nothing to tell: nobody is assigned yet), so each sample waits for no backlog.
  for (;;) {
    const [row] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = ${QUEUES.domainEvents} and state in ('created', 'retry', 'active')`);
    if (Number(row.n) === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  const samples: number[] = [];
  for (let i = 0; i < conversations.length; i++) {
    const id = conversations[i];
    const heard = new Promise<bigint>((resolve, reject) => {
      waiting.set(String(id), resolve);
      setTimeout(() => reject(new Error(`no notification for #${id} within 5 s`)), 5000).unref();
    });
    const t0 = process.hrtime.bigint();
    await assignConversations({ accountId: account.id, actorId: owner.id, ids: [id], assigneeId: agent.id, teamId: null });
    const t1 = await heard;
    waiting.delete(String(id));
    // The first five warm up the engine's and pg-boss's connections.
    if (i >= 5) samples.push(Number(t1 - t0) / 1e6);
  }

  const p95 = percentile(samples, 95);
  console.log(`Notification from domain event to the agent's websocket (engine inline), ${samples.length} assignments`);
  console.log(
    `   p50 ${fmt(percentile(samples, 50))} ms   p95 ${fmt(p95)} ms   max ${fmt(Math.max(...samples))} ms   (ceiling p95 < ${CEILING_MS} ms: ${
      p95 < CEILING_MS ? 'met' : 'NOT met'
    })`,
  );

  ws.close();
  await live.close();
  await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  await engine.stop();
  await stopBoss();
  await closeDb();
  await server.stop();
  if (p95 >= CEILING_MS) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
