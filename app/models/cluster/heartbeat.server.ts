import { eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { nodeId, nodeName } from './node.server';
import { PARLEY_VERSION } from '../operations/version.server';

/**
 * Each process's row in node_heartbeats (ADR 152), for the console's status page: written at start, once a minute,
 * and removed at a clean stop. One small write a minute per process is all it costs at idle (ADR 142).
 */
export const NODE_HEARTBEAT_MS = 60_000;
/** A row not refreshed for three beats is a process that died without removing it. */
export const NODE_STALE_MS = NODE_HEARTBEAT_MS * 3;

export type NodeRole = 'web' | 'web+engine' | 'engine';

async function beat(role: NodeRole, startedAt: Date) {
  await getDb()
    .insert(schema.nodeHeartbeats)
    .values({ nodeId: nodeId(), role, version: PARLEY_VERSION, startedAt, seenAt: new Date() })
    .onConflictDoUpdate({ target: schema.nodeHeartbeats.nodeId, set: { seenAt: new Date(), role, version: PARLEY_VERSION } });
}

export async function startNodeHeartbeat(opts: { role: NodeRole; everyMs?: number }) {
  const startedAt = new Date();
  const log = getLogger();
  const run = () => beat(opts.role, startedAt).catch((err) => log.warn({ err: (err as Error).message }, 'node heartbeat failed'));
  await run();
  const timer = setInterval(run, opts.everyMs ?? NODE_HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await getDb()
        .delete(schema.nodeHeartbeats)
        .where(eq(schema.nodeHeartbeats.nodeId, nodeId()))
        .catch(() => {});
    },
  };
}

/** Every node's row, with whether it is still beating; rows older than a day are dropped on the way. */
export async function listNodes() {
  await getDb().delete(schema.nodeHeartbeats).where(sql`${schema.nodeHeartbeats.seenAt} < now() - interval '1 day'`);
  const rows = await getDb().select().from(schema.nodeHeartbeats).orderBy(schema.nodeHeartbeats.nodeId);
  const now = Date.now();
  return rows.map((r) => ({ ...r, name: nodeName(r.nodeId), alive: now - r.seenAt.getTime() <= NODE_STALE_MS, self: r.nodeId === nodeId() }));
}
