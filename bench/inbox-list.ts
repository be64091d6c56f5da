/**
 * Inbox list and thread at scale: 100,000 conversations and 1,000,000 messages in one account.
 * Target (issue 3): the list and any filter combination under 150 ms server time at p95; a 2,000-message
 * conversation's screen under 200 ms. Run: npm run build && npm run bench:inbox  (BENCH_SCALE=0.1 for a quick run)
 */
import { sql } from 'drizzle-orm';
import { benchDatabase, measure } from './support';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const CONVERSATIONS = Math.round(100_000 * SCALE);
const MESSAGES = Math.round(1_000_000 * SCALE);

async function main() {
  const server = await benchDatabase('inbox');
  const { getDb, closeDb } = await import('../db/client');
  const { createTestAccount, createTestUser } = await import('../tests/factories');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { listConversations, countConversations, getConversation } = await import('../app/models/inbox/conversations.server');
  const { listThread } = await import('../app/models/inbox/messages.server');
  const db = getDb();

  const t0 = Date.now();
  const a = await createTestAccount({ domain: 'bench' });
  const accountId = a.account.id;
  const agents = [a.owner.id];
  for (let i = 0; i < 9; i++) agents.push((await createTestUser({ accountId, email: `agent${i}@bench.test` })).id);
  const inboxes: number[] = [];
  for (const name of ['Support', 'Billing', 'Sales', 'Partners', 'Returns']) inboxes.push((await createInbox({ accountId, actorId: a.owner.id, name, channelType: 'email' })).id);
  const words = ['refund', 'invoice', 'login', 'password', 'shipping', 'parcel', 'broken', 'upgrade', 'cancel', 'discount', 'delivery', 'warranty', 'account', 'billing', 'error', 'crash', 'slow', 'export', 'import', 'mobile'];
  const wordArray = sql.raw(`array[${words.map((w) => `'${w}'`).join(',')}]`);
  const agentArray = sql.raw(`array[${agents.join(',')}]`);
  const inboxArray = sql.raw(`array[${inboxes.join(',')}]`);

  await db.execute(sql`insert into contacts (account_id, email, first_name, last_name)
    select ${accountId}, 'customer' || g || '@example.test', 'First' || g, 'Last' || g from generate_series(1, ${Math.max(1000, CONVERSATIONS / 5)}::int) g`);
  const [{ min: contactMin }] = await db.execute<{ min: number }>(sql`select min(id)::int as min from contacts where account_id = ${accountId}`);
  await db.execute(sql`insert into tags (account_id, name) select ${accountId}, 'tag' || g from generate_series(1, 20) g`);
  await db.execute(sql`insert into conversations (account_id, inbox_id, contact_id, subject, status, priority, source_type, assignee_id, last_message_at, created_at, message_count, last_message_preview)
    select ${accountId}, (${inboxArray})[1 + g % ${inboxes.length}], ${contactMin} + g % ${Math.max(1000, CONVERSATIONS / 5)},
      initcap((${wordArray})[1 + g % 20]) || ' ' || (${wordArray})[1 + (g * 7) % 20] || ' #' || g,
      (array['open','pending','snoozed','resolved'])[1 + (g * 13) % 4], g % 5, 'email',
      case when g % 4 = 0 then null else (${agentArray})[1 + g % ${agents.length}] end,
      now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval - interval '1 day', 10, 'preview of message ' || g
    from generate_series(1, ${CONVERSATIONS}::int) g`);
  const [{ min: convMin }] = await db.execute<{ min: number }>(sql`select min(id)::int as min from conversations where account_id = ${accountId}`);
  await db.execute(sql`insert into conversation_tags (conversation_id, tag_id, account_id)
    select c.id, t.id, ${accountId} from conversations c join tags t on t.account_id = ${accountId} and t.id % 20 = c.id % 20 where c.account_id = ${accountId} and c.id % 3 = 0`);
  // Messages in batches so that memory stays flat.
  const batch = 200_000;
  for (let start = 1; start <= MESSAGES; start += batch) {
    const end = Math.min(MESSAGES, start + batch - 1);
    await db.execute(sql`insert into messages (account_id, conversation_id, kind, text, created_at)
      select ${accountId}, ${convMin} + g % ${CONVERSATIONS}, case when g % 2 = 0 then 'incoming' else 'outgoing' end,
        'Hello, about my ' || (${wordArray})[1 + g % 20] || ': the ' || (${wordArray})[1 + (g * 3) % 20] || ' is ' || (${wordArray})[1 + (g * 11) % 20] || ' since order ' || g,
        now() - (g || ' seconds')::interval
      from generate_series(${start}::int, ${end}::int) g`);
  }
  // One long conversation: 2,000 messages.
  const long = convMin + 7;
  await db.execute(sql`insert into messages (account_id, conversation_id, kind, text, created_at)
    select ${accountId}, ${long}, case when g % 2 = 0 then 'incoming' else 'outgoing' end, 'Long thread message ' || g || ' about the ' || (${wordArray})[1 + g % 20], now() - ((2000 - g) || ' seconds')::interval
    from generate_series(1, 2000) g`);
  await db.execute(sql`update conversations set message_count = 2010 where id = ${long}`);
  // What addMessage maintains message by message, built in one pass for the seeded rows.
  await db.execute(sql`update conversations c set search = strip(to_tsvector('simple', c.subject || ' ' || concat_ws(' ', ct.first_name, ct.last_name, ct.email, translate(ct.email, '@.+_-', '     '))) || coalesce(m.doc, ''::tsvector))
    from contacts ct, (select conversation_id, to_tsvector('simple', string_agg(text, ' ')) as doc from messages where account_id = ${accountId} group by conversation_id) m
    where c.id = m.conversation_id and ct.id = c.contact_id and c.account_id = ${accountId}`);
  // Autovacuum would have run on a live system: set the visibility map so that index-only scans stay index-only.
  await db.execute(sql`vacuum analyze`);
  console.log(`seeded ${CONVERSATIONS} conversations, ${MESSAGES + 2000} messages in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);

  const userId = agents[1];
  if (process.env.BENCH_EXPLAIN) {
    // Prints the plans of the list and count queries of a filter, to see where time goes.
    const q = process.env.BENCH_EXPLAIN;
    for (const text of [
      `select id from conversations c where account_id = ${accountId} and deleted_at is null and search @@ plainto_tsquery('simple', '${q}') order by last_message_at desc, id desc limit 50`,
      `select count(*) from (select 1 from conversations c where account_id = ${accountId} and deleted_at is null and search @@ plainto_tsquery('simple', '${q}') limit 10001) t`,
    ]) {
      const plan = await db.execute<{ 'QUERY PLAN': string }>(sql.raw(`explain analyze ${text}`));
      console.log(plan.map((r) => r['QUERY PLAN']).join('\n'), '\n');
    }
  }
  const combos: [string, Parameters<typeof listConversations>[0]['filters']][] = [
    ['default (open, newest first)', {}],
    ['all statuses, page 20', { status: 'all', page: 20 }],
    ['mine', { assignee: 'mine' }],
    ['unassigned, pending', { assignee: 'unassigned', status: 'pending' }],
    ['inbox + priority high', { inbox: inboxes[1], priority: 'high' }],
    ['tag', { tag: undefined, status: 'all' }],
    ['inbox + assignee + resolved + sort by priority', { inbox: inboxes[2], assignee: String(agents[3]), status: 'resolved', sort: 'priority' }],
    ['text search "warranty"', { q: 'warranty', status: 'all' }],
    ['text search "refund parcel" in open', { q: 'refund parcel' }],
    ['text search a contact name "First123"', { q: 'First123', status: 'all' }],
    ['source email, created asc', { source: 'email', sort: 'created', dir: 'asc' }],
  ];
  const [{ id: tagId }] = await db.execute<{ id: number }>(sql`select id from tags where account_id = ${accountId} order by id limit 1 offset 4`);
  combos[5][1].tag = tagId;
  console.log('list + counts (what the inbox page loads):');
  const results = [];
  for (const [label, filters] of combos) {
    results.push(
      await measure(label, 40, () => Promise.all([listConversations({ accountId, userId, filters }), countConversations({ accountId, userId, filters })])),
    );
  }
  console.log('\nconversation screen of a 2,000-message conversation:');
  results.push(await measure('getConversation + newest window of the thread', 40, () => Promise.all([getConversation({ accountId, id: long }), listThread({ accountId, conversationId: long })])));
  results.push(await measure('older window (before the 1,000th message)', 40, async () => listThread({ accountId, conversationId: long, before: Number((await db.execute<{ id: number }>(sql`select id from messages where conversation_id = ${long} order by id limit 1 offset 1000`))[0].id) })));
  // The same through HTTP: route loader, React render and Express, as an agent's browser asks for it.
  const { sessionCookie, startTestApp } = await import('../tests/helpers/http');
  const { filtersToSearch } = await import('../app/models/inbox/filters');
  const app = await startTestApp();
  const cookie = await sessionCookie({ domain: 'bench', accountId, userId });
  console.log('\nthe same pages over HTTP (server time: loader + render):');
  const pages = [];
  for (const [label, filters] of combos) {
    const path = `/inbox${filtersToSearch(filters as Record<string, string | number | undefined>)}`;
    pages.push(
      await measure(`GET ${path}`.slice(0, 58), 30, async () => {
        const res = await app.request(path, { domain: 'bench', cookie });
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      }),
    );
  }
  pages.push(
    await measure(`GET /inbox/${long} (2,000 messages)`, 30, async () => {
      const res = await app.request(`/inbox/${long}`, { domain: 'bench', cookie });
      if (res.status !== 200) throw new Error(`conversation: ${res.status}`);
    }),
  );
  await app.close();
  console.log(
    `\nworst page p95 over HTTP: ${Math.max(...pages.slice(0, combos.length).map((r) => r.p95)).toFixed(1)} ms (target 150 ms); conversation page p95: ${pages[combos.length].p95.toFixed(1)} ms (target 200 ms)`,
  );

  // The side panel's counts now (from the deltas, ADR 032) beside what they cost before issue 23 (a scan of every
  // conversation of the account grouped by status and inbox), in the same run.
  console.log('\nside panel counts, default filters:');
  await measure('counts from the deltas (now)', 20, () => countConversations({ accountId, userId, filters: {} }));
  await measure('(before issue 23) counting every conversation', 20, () =>
    db.execute(sql`select status, inbox_id, count(*)::int from conversations where account_id = ${accountId} and deleted_at is null group by status, inbox_id`),
  );

  if (process.env.BENCH_DETAIL) {
    console.log('\nseparately (list page / status counts):');
    for (const [label, filters] of combos) {
      await measure(`${label}: list`, 20, () => listConversations({ accountId, userId, filters }));
      await measure(`${label}: counts`, 20, () => countConversations({ accountId, userId, filters }));
    }
  }
  const worst = Math.max(...results.slice(0, combos.length).map((r) => r.p95));
  console.log(`\nworst list p95: ${worst.toFixed(1)} ms (target 150 ms); thread p95: ${results[combos.length].p95.toFixed(1)} ms (target 200 ms)`);
  const { stopBoss } = await import('../app/utils/jobs.server');
  await stopBoss();
  await closeDb();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
