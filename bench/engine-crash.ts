/**
 * Crash safety (issue 6): 10,000 conversation_created events are queued, a separate engine process works them and
 * is killed with SIGKILL part-way; a new engine process finishes. Then every event must have been evaluated and
 * every action applied exactly once: each conversation carries exactly one workflow note and its tag.
 * Run: npx tsx bench/engine-crash.ts   (BENCH_EVENTS=2000 for a quick run)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { benchDatabase } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startEngineProcess(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'engine/main.ts'], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function main() {
  const server = await benchDatabase('crash');
  const { eq, sql } = await import('drizzle-orm');
  const { closeDb, getDb, schema } = await import('../db/client');
  const { startBoss, stopBoss } = await import('../app/utils/jobs.server');
  const { emitEvents } = await import('../app/models/events/events.server');
  const { createTestAccount } = await import('../tests/factories');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { createTag } = await import('../app/models/productivity/tags.server');
  const db = getDb();
  await startBoss();

  const { account, owner } = await createTestAccount({ domain: 'benchcrash' });
  const inbox = await createInbox({
    accountId: account.id,
    actorId: owner.id,
    name: 'Support',
    channelType: 'email',
    email: 'support@bench-crash.test',
  });
  const tag = await createTag({
    accountId: account.id,
    actorId: owner.id,
    name: 'seen',
    color: 'green',
  });
  const [rule] = await db
    .insert(schema.automationRules)
    .values({
      accountId: account.id,
      kind: 'workflow',
      name: 'Tag and note',
      event: 'conversation_created',
      isActive: true,
      actions: [
        { type: 'assign_tag', tagIds: [tag.id] },
        { type: 'leave_note', note: 'Seen by the workflow' },
      ],
    })
    .returning();

  // The conversations exist; their conversation_created events are queued in bulk, as an import would.
  const [contact] = await db
    .insert(schema.contacts)
    .values({
      accountId: account.id,
      firstName: 'Crash',
      lastName: 'Test',
      email: 'crash@example.test',
    })
    .returning();
  const convIds: number[] = [];
  for (let i = 0; i < EVENTS; i += 1000) {
    const rows = await db
      .insert(schema.conversations)
      .values(
        Array.from({ length: Math.min(1000, EVENTS - i) }, (_, k) => ({
          accountId: account.id,
          inboxId: inbox.id,
          contactId: contact.id,
          subject: `Crash ${i + k}`,
          sourceType: 'email' as const,
        })),
      )
      .returning({ id: schema.conversations.id });
    convIds.push(...rows.map((r) => r.id));
  }
  for (let i = 0; i < convIds.length; i += 1000) {
    await db.transaction((tx) =>
      emitEvents(
        tx,
        convIds.slice(i, i + 1000).map((id) => ({
          accountId: account.id,
          type: 'conversation_created' as const,
          subjectType: 'conversation',
          subjectId: id,
          payload: { inboxId: inbox.id, contactId: contact.id },
        })),
      ),
    );
  }
  console.log(`${EVENTS} conversation_created events queued; one workflow with two actions (tag, note) on each`);

  const applied = async () =>
    Number(
      (
        await db
          .select({ n: sql<number>`count(*)::int` })
          .from(schema.automationRunLog)
          .where(eq(schema.automationRunLog.step, 'action_applied'))
      )[0].n,
    );
  let engine = startEngineProcess();
  const started = Date.now();
  while ((await applied()) < EVENTS * 0.3) await sleep(100);
  engine.kill('SIGKILL');
  await new Promise((r) => engine.once('exit', r));
  const atKill = await applied();
  const [activeAtKill] = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from pgboss.job where name = 'engine.domain-events' and state = 'active'`,
  );
  console.log(`SIGKILL after ${((Date.now() - started) / 1000).toFixed(1)} s: ${atKill} actions applied, ${activeAtKill.n} jobs left active (in flight)`);

  engine = startEngineProcess();
  const restarted = Date.now();
  for (;;) {
    const [row] = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from pgboss.job where name = 'engine.domain-events' and state in ('created', 'retry', 'active')`,
    );
    if (Number(row.n) === 0) break;
    await sleep(500);
  }
  console.log(`restarted engine drained the queue in ${((Date.now() - restarted) / 1000).toFixed(1)} s (in-flight jobs come back after their 60 s expiry)`);
  engine.kill('SIGTERM');
  await new Promise((r) => engine.once('exit', r));

  const [decisions] = await db.execute<{ n: number }>(
    // The verdicts are one row per event (ADR 106).
    sql`select count(*)::int as n from ${schema.automationEventVerdicts} where account_id = ${account.id} and verdicts -> ${String(rule.id)} ->> 'step' = 'matched'`,
  );
  const [notes] = await db.execute<{
    conversations: number;
    min: number;
    max: number;
  }>(sql`
    select count(*)::int as conversations, min(n)::int as min, max(n)::int as max from (
      select c.id, count(m.id) as n from ${schema.conversations} c
        left join ${schema.messages} m on m.conversation_id = c.id and m.kind = 'note'
       where c.account_id = ${account.id} group by c.id) per`);
  const [tagged] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${schema.conversationTags} where tag_id = ${tag.id}`);
  const [dead] = await db.execute<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = 'engine.dead-letters'`);
  const ok = decisions.n === EVENTS && notes.min === 1 && notes.max === 1 && tagged.n === EVENTS && Number(dead.n) === 0;
  console.log(
    `events evaluated: ${decisions.n}/${EVENTS}; notes per conversation: min ${notes.min}, max ${notes.max}; tagged: ${tagged.n}; dead letters: ${dead.n}`,
  );
  console.log(ok ? 'OK: every event processed, no action applied twice' : 'FAILED');
  await stopBoss();
  await closeDb();
  await server.stop();
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
