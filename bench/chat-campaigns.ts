/**
 * What the message-campaign check adds to the widget's session start (issue 16, ADR 082; target: at most 20 ms p95
 * with 50 active campaigns). Against the compiled production server: N new visitors start a session (POST
 * session with the page's URL, as the widget does) in a messenger with no campaigns, then in one with 50 live
 * message campaigns (page, visitor, business-hours and segment conditions; the page matches the last one checked,
 * so every candidate is evaluated). Printed: p50/p95 of both and the difference.
 * Run: npm run build && npm run bench:chat-campaigns      BENCH_VISITORS=200
 */
import os from 'node:os';
import { benchDatabase, percentile, postJson as post } from './support';

const VISITORS = Number(process.env.BENCH_VISITORS ?? 200);

async function main() {
  const db0 = await benchDatabase('chat-campaigns');
  const { startCompiledServer } = await import('./support');
  const { closeDb, getDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount } = await import('../tests/factories');
  const { createWebInbox } = await import('../app/models/channels/messenger-settings.server');
  const { createMessageCampaign, scheduleCampaign } = await import('../app/models/campaigns/campaigns.server');
  const { createSegment } = await import('../app/models/crm/segments.server');

  const { account, owner } = await createTestAccount({ domain: 'benchchat' });
  const who = { accountId: account.id, actorId: owner.id };
  const plain = await createWebInbox({ ...who, name: 'No campaigns' });
  const busy = await createWebInbox({ ...who, name: 'Fifty campaigns' });
  const segment = await createSegment({ ...who, kind: 'contact', name: 'DE', isStatic: false, conditions: { country: 'DE' }, memberIds: [] });
  for (let i = 0; i < 50; i++) {
    const row = await createMessageCampaign({
      ...who,
      name: `Campaign ${i}`,
      inboxId: busy.id,
      senderUserId: owner.id,
      body: `Hello from campaign ${i}`,
      // 49 of them name other pages (one with a segment, a few new/returning or business hours); the oldest matches.
      pages: i === 0 ? ['/pricing'] : [`/page-${i}`, `/other-${i}`],
      pageMatch: i % 2 ? 'start' : 'contain',
      delaySeconds: 0,
      visitor: i % 3 === 1 ? 'returning' : 'any',
      businessHoursOnly: i % 5 === 0,
      segmentId: i % 7 === 3 ? segment.id : undefined,
    });
    await scheduleCampaign({ ...who, id: row.id });
  }

  const server = await startCompiledServer({
    env: { DATABASE_URL: process.env.DATABASE_URL!, APP_HOST: process.env.APP_HOST!, SESSION_SECRET: process.env.SESSION_SECRET!, PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR! },
  });
  const host = process.env.APP_HOST!;
  const run = async (inboxId: number) => {
    const samples: number[] = [];
    for (let i = 0; i < VISITORS; i++) {
      // The session limit (60 a minute per address) is for the public; the bench clears it between sessions, untimed.
      if (i % 50 === 0) await getDb().execute(sql`delete from rate_limits where key like 'widget-session:%'`);
      const t0 = performance.now();
      const s = await post(server.port, '/public/widget/session', JSON.stringify({ inboxId, url: 'https://shop.example/pricing' }), {
        host,
        'content-type': 'application/json',
        origin: 'http://shop.example',
      });
      samples.push(performance.now() - t0);
      if (s.status !== 200) throw new Error(`session: ${s.status} ${JSON.stringify(s.json)}`);
      if (inboxId === busy.id && !(s.json.campaign as { text?: string } | null)?.text) throw new Error('the matching campaign was not offered');
    }
    return samples;
  };
  // Warm up both paths, then alternate so the machine's load falls on both alike.
  await run(plain.id);
  await run(busy.id);
  const base: number[] = [];
  const withCampaigns: number[] = [];
  for (let round = 0; round < 2; round++) {
    base.push(...(await run(plain.id)));
    withCampaigns.push(...(await run(busy.id)));
  }
  const f = (n: number) => n.toFixed(1);
  console.log(`message campaigns at session start — ${VISITORS * 2} sessions each; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`  no campaigns:      p50 ${f(percentile(base, 50))} ms, p95 ${f(percentile(base, 95))} ms`);
  console.log(`  50 live campaigns: p50 ${f(percentile(withCampaigns, 50))} ms, p95 ${f(percentile(withCampaigns, 95))} ms`);
  console.log(`  added: p50 ${f(percentile(withCampaigns, 50) - percentile(base, 50))} ms, p95 ${f(percentile(withCampaigns, 95) - percentile(base, 95))} ms (target ≤ 20 ms p95)`);
  await server.stop();
  await closeDb();
  await db0.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
