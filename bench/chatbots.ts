/**
 * A chatbot's reply reaching the widget (issue 17, ADR 075; target p95 < 150 ms). Against the compiled production
 * server in a child process: V visitors of a web inbox with a bot each open the visitor socket, as the widget
 * does, and send two messages (the first opens the conversation and the bot greets and asks a question; the second
 * presses a button and the bot answers it), C visitors at a time. Measured: from sending POST messages to the
 * bot's message arriving on the visitor socket.
 * Run: npm run build && npm run bench:chatbots      BENCH_VISITORS=50 BENCH_CONCURRENCY=10
 */
import os from 'node:os';
import WebSocket from 'ws';
import { benchDatabase, percentile, postJson as post, startCompiledServer } from './support';

const VISITORS = Number(process.env.BENCH_VISITORS ?? 50);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
/** How long a reply may take before the bench says which one never came (instead of waiting for ever). */
const WAIT_MS = Number(process.env.BENCH_WAIT_MS ?? 15_000);

async function main() {
  const db0 = await benchDatabase('chatbots');
  const { closeDb } = await import('../db/client');
  const { createTestAccount } = await import('../tests/factories');
  const { createWebInbox } = await import('../app/models/channels/messenger-settings.server');
  const { createChatbot, saveChatbotFlow, updateChatbotSettings } = await import('../app/models/chatbots/chatbots.server');
  const { DEFAULT_CONDITIONS } = await import('../app/models/chatbots/constants');

  const { account, owner } = await createTestAccount({ domain: 'benchbots' });
  const inbox = await createWebInbox({ accountId: account.id, actorId: owner.id, name: 'Shop' });
  const bot = await createChatbot({ accountId: account.id, actorId: owner.id, name: 'Bench bot' });
  await saveChatbotFlow({
    accountId: account.id,
    id: bot.id,
    steps: [
      { id: 's1', type: 'message', text: 'Hello!', next: 's2' },
      { id: 's2', type: 'question', text: 'Sales or support?', choices: [{ label: 'Sales', next: 's3' }, { label: 'Support', next: 's3' }], next: null },
      { id: 's3', type: 'handover', text: 'Connecting you with the team.', teamId: null, userId: null },
    ],
  });
  await updateChatbotSettings({ accountId: account.id, id: bot.id, name: 'Bench bot', enabled: true, inboxIds: [inbox.id], priority: 0, conditions: DEFAULT_CONDITIONS });

  const server = await startCompiledServer({
    // BENCH_SERVER_DIR: another checkout's build (a "before" for side-by-side figures on the same machine).
    cwd: process.env.BENCH_SERVER_DIR,
    nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
    env: { DATABASE_URL: process.env.DATABASE_URL!, APP_HOST: process.env.APP_HOST!, SESSION_SECRET: process.env.SESSION_SECRET!, PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR! },
  });
  const host = process.env.APP_HOST!;
  const first: number[] = [];
  const answer: number[] = [];

  const visit = async () => {
    const s = await post(server.port, '/public/widget/session', JSON.stringify({ inboxId: inbox.id }), { host, 'content-type': 'application/json', origin: 'http://shop.example' });
    if (s.status !== 200) throw new Error(`session: ${s.status} ${JSON.stringify(s.json)}`);
    const token = s.json.token as string;
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/widget/ws?token=${encodeURIComponent(token)}`, { headers: { host, origin: 'http://shop.example' } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const waitFor = (text: string) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          ws.off('message', on);
          reject(new Error(`no "${text}" on the visitor's socket within ${WAIT_MS} ms`));
        }, WAIT_MS);
        const on = (raw: WebSocket.RawData) => {
          const m = JSON.parse(raw.toString());
          if (m.type === 'message' && m.message.from === 'agent' && m.message.text === text) {
            ws.off('message', on);
            clearTimeout(timer);
            resolve(performance.now());
          }
        };
        ws.on('message', on);
      });
    const say = async (text: string, expect: string) => {
      const form = `text=${encodeURIComponent(text)}`;
      const arrived = waitFor(expect);
      const t0 = performance.now();
      const r = await post(server.port, '/public/widget/messages', form, { host, 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}`, origin: 'http://shop.example' });
      if (r.status !== 200) throw new Error(`messages: ${r.status} ${JSON.stringify(r.json)}`);
      return (await arrived) - t0;
    };
    first.push(await say('Hi there', 'Sales or support?'));
    answer.push(await say('Sales', 'Connecting you with the team.'));
    ws.close();
  };

  // A few visitors first, not measured: the server's first requests compile its routes and queries (the profile
  // of a cold run shows module loading), which is start-up cost and not a bot's reply time.
  const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
  for (let i = 0; i < WARMUP; i++) await visit();
  first.length = 0;
  answer.length = 0;
  const cpu0 = server.cpuMs();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < VISITORS) {
        next++;
        await visit();
      }
    }),
  );
  const wall = performance.now() - t0;
  const all = [...first, ...answer];
  const row = (label: string, xs: number[]) =>
    console.log(`  ${label.padEnd(44)} p50 ${percentile(xs, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(xs, 95).toFixed(1).padStart(6)} ms   max ${Math.max(...xs).toFixed(1).padStart(6)} ms`);
  console.log(`Chatbot reply reaching the widget socket: ${VISITORS} visitors, ${CONCURRENCY} at a time (load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  row('first message -> bot question (2 bot messages)', first);
  row('button answer -> bot hand-over', answer);
  row('all bot replies (target p95 < 150 ms)', all);
  console.log(`  server CPU ${(server.cpuMs() - cpu0).toFixed(0)} ms over ${wall.toFixed(0)} ms wall`);
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
