/**
 * Live updates of the inbox list with many agents (issue 23, ADR 045). N agents have the inbox list open (one
 * websocket each, against the compiled production server in a child process); conversations arrive at R a second.
 * Each agent's client does what the browser does:
 *   - patch  (now):    watches the list; a change arrives as `inbox.patch` and is applied in place: seen on arrival.
 *   - reload (before): every concerning message reloads the page's data (`/inbox.data`, all loaders, 150 ms
 *                       debounce, one reload at a time): seen when that reload's answer has arrived.
 * Printed: what the server sent (messages, bytes, page reloads served), its CPU per event and in all, and the time from
 * the conversation's commit to each agent having it (p50/p95), beside the issue's targets (1 s p95, CPU < 60 %).
 * Run: npm run build && npm run bench:live
 *   BENCH_AGENTS=200 BENCH_EVENTS=50 BENCH_RATE=5 BENCH_MODE=patch|reload BENCH_BUILD_DIR=<checkout with a build>
 * "Before" figures: build the commit before ADR 045 in another directory and run there with BENCH_MODE=reload.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { benchDatabase, percentile, startCompiledServer } from './support';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 200);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 5);
const MODE = process.env.BENCH_MODE === 'reload' ? 'reload' : 'patch';
const fmt = (n: number, d = 1) => n.toFixed(d);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 });
function get(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      })
      // Reloads still under way when the server stops: not counted.
      .on('error', () => resolve({ status: 0, text: '' }));
  });
}

async function main() {
  const db0 = await benchDatabase('live');
  const { getDb, closeDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount, createTestUser } = await import('../tests/factories');
  const { sessionCookie } = await import('../tests/helpers/http');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { openConversation } = await import('../app/models/inbox/conversations.server');
  const db = getDb();

  const { account, owner } = await createTestAccount({ domain: 'benchlive' });
  const first = await createTestUser({ accountId: account.id, roleKind: 'agent', email: 'agent0@bench.test' });
  await db.execute(sql`insert into users (account_id, role_id, email, first_name, last_name, password_hash, status, email_verified_at)
    select account_id, role_id, 'agent' || g || '@bench.test', 'Agent', 'No ' || g, password_hash, status, email_verified_at
    from users, generate_series(1, ${AGENTS - 1}::int) g where users.id = ${first.id}`);
  const agentIds = (await db.execute<{ id: number }>(sql`select id from users where account_id = ${account.id} and id <> ${owner.id} order by id`)).map((r) => Number(r.id));
  const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Desk', channelType: 'internal' });
  // A realistic list: a full first page of existing conversations.
  for (let i = 0; i < 60; i++) {
    await openConversation({ accountId: account.id, inboxId: inbox.id, sourceType: 'internal_ticket', subject: `Existing ${i}`, contact: { email: `old${i}@bench.test` }, message: { kind: 'incoming', text: 'hi' } });
  }

  const server = await startCompiledServer({
    cwd: process.env.BENCH_BUILD_DIR,
    env: { DATABASE_URL: process.env.DATABASE_URL!, APP_HOST: process.env.APP_HOST!, SESSION_SECRET: process.env.SESSION_SECRET!, PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR! },
  });
  const host = `${account.domain}.${process.env.APP_HOST}`;

  // subject -> per agent, when the agent had it
  const seen = new Map<string, number[]>();
  const committedAt = new Map<string, number>();
  let wsMessages = 0;
  let wsBytes = 0;
  let reloads = 0;
  let reloadBytes = 0;
  const sockets: WebSocket[] = [];

  const markSeen = (agent: number, subjects: Iterable<string>) => {
    const now = performance.now();
    for (const s of subjects) {
      if (!committedAt.has(s)) continue;
      const list = seen.get(s) ?? [];
      if (list[agent] === undefined) list[agent] = now;
      seen.set(s, list);
    }
  };

  await Promise.all(
    agentIds.map(async (userId, agent) => {
      const cookie = await sessionCookie({ domain: account.domain, accountId: account.id, userId });
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { headers: { host, cookie } });
      sockets.push(ws);
      let timer: NodeJS.Timeout | undefined;
      let inFlight = false;
      let again = false;
      const reload = async () => {
        if (inFlight) return void (again = true);
        inFlight = true;
        // Node's fetch drops the Host header: a plain request, as a browser on the account's host sends it.
        const res = await get(server.port, '/inbox.data', { host, cookie });
        const text = res.text;
        if (reloads === 0 && process.env.BENCH_DEBUG) console.log('first reload', res.status, text.slice(0, 300));
        reloads += 1;
        reloadBytes += text.length;
        markSeen(agent, [...committedAt.keys()].filter((s) => text.includes(s)));
        inFlight = false;
        if (again) {
          again = false;
          void reload();
        }
      };
      ws.on('message', (raw) => {
        const text = raw.toString();
        wsMessages += 1;
        wsBytes += text.length;
        const m = JSON.parse(text) as { type: string; rows?: { subject: string }[] };
        if (m.type === 'hello') {
          if (MODE === 'patch') ws.send(JSON.stringify({ type: 'watch', topic: 'inbox', filters: {} }));
          return;
        }
        if (MODE === 'patch') {
          if (m.type === 'inbox.patch') markSeen(agent, (m.rows ?? []).map((r) => r.subject));
        } else if (['conversation.created', 'conversation.updated', 'conversation.deleted', 'message.created'].includes(m.type)) {
          clearTimeout(timer);
          timer = setTimeout(() => void reload(), 150);
        }
      });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
    }),
  );
  await new Promise((r) => setTimeout(r, 1000));
  wsMessages = 0;
  wsBytes = 0;

  const cpu0 = server.cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const subject = `Live ${i} ${Math.random().toString(36).slice(2, 8)}`;
    void openConversation({ accountId: account.id, inboxId: inbox.id, sourceType: 'internal_ticket', subject, contact: { email: `new${i}@bench.test` }, message: { kind: 'incoming', text: 'hello' } }).then(() =>
      committedAt.set(subject, performance.now()),
    );
  }
  // Until every agent has every conversation, or 60 s.
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const complete = [...committedAt.keys()].length === EVENTS && [...committedAt.keys()].every((s) => (seen.get(s) ?? []).filter((x) => x !== undefined).length === AGENTS);
    if (complete) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wall = performance.now() - t0;
  const cpu = server.cpuMs() - cpu0;

  const latencies: number[] = [];
  let missing = 0;
  for (const [s, at] of committedAt) {
    const list = seen.get(s) ?? [];
    for (let a = 0; a < AGENTS; a++) {
      if (list[a] === undefined) missing += 1;
      else latencies.push(Math.max(0, list[a] - at));
    }
  }
  if (!latencies.length) latencies.push(NaN);
  const p95 = percentile(latencies, 95);
  const cpuShare = cpu / wall;
  console.log(`Inbox list live updates, mode ${MODE}${process.env.BENCH_BUILD_DIR ? ` (build in ${process.env.BENCH_BUILD_DIR})` : ''}: ${AGENTS} agents, ${EVENTS} new conversations at ${RATE}/s`);
  console.log(`  websocket messages to agents   ${wsMessages}  (${fmt(wsMessages / EVENTS)} per event, ${fmt(wsMessages / EVENTS / AGENTS, 2)} per event per agent)`);
  console.log(`  websocket bytes                 ${wsBytes}  (${fmt(wsBytes / EVENTS / AGENTS, 0)} per event per agent)`);
  console.log(`  page reloads served             ${reloads}  (${fmt(reloadBytes / 1024 / 1024)} MiB)`);
  console.log(`  server CPU                      ${fmt(cpu, 0)} ms over ${fmt(wall / 1000)} s = ${fmt(cpuShare * 100)} % of one core; ${fmt(cpu / EVENTS)} ms per event   (target < 60 %)`);
  console.log(`  commit -> agent has it          p50 ${fmt(percentile(latencies, 50))} ms   p95 ${fmt(p95)} ms   max ${fmt(latencies.reduce((m, x) => (x > m ? x : m), -Infinity))} ms   (target p95 < 1000 ms)`);
  console.log(`  agent x conversation never seen ${missing} of ${AGENTS * EVENTS}`);
  console.log(`  server RSS                      ${fmt(server.rssMiB(), 0)} MiB`);

  for (const ws of sockets) ws.close();
  await server.stop();
  const { stopBoss } = await import('../app/utils/jobs.server');
  await stopBoss();
  await closeDb();
  await db0.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
