import { eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../db/client';
import { singleton } from '../app/utils/singleton.server';

type Status = { running: boolean; mode: 'inline' | 'external' };

export function engineState() {
  return singleton('engine-status', (): Status => ({ running: false, mode: 'inline' }));
}

/**
 * How often an engine writes its heartbeat row (ADR 142: every 15 s, one small write; every 5 s was the largest
 * idle cost after the queues' polling). `engineStatus` counts an engine that beat within the last 3 beats.
 */
export const HEARTBEAT_MS = 15_000;

export async function writeHeartbeat(id: string) {
  await getDb()
    .insert(schema.engineHeartbeats)
    .values({ id, seenAt: new Date() })
    .onConflictDoUpdate({ target: schema.engineHeartbeats.id, set: { seenAt: new Date() } });
}

/** Inline engine: its own flag. External engine (`npm run engine`): a heartbeat seen in the last 3 beats. */
export async function engineStatus(): Promise<{ running: boolean; mode: 'inline' | 'external' }> {
  const state = engineState();
  if (state.mode === 'inline' && state.running) return state;
  const rows = await getDb()
    .select({ id: schema.engineHeartbeats.id })
    .from(schema.engineHeartbeats)
    .where(sql`${schema.engineHeartbeats.seenAt} > now() - make_interval(secs => ${(HEARTBEAT_MS * 3) / 1000})`)
    .limit(1);
  return { running: rows.length > 0, mode: state.mode };
}

export async function removeHeartbeat(id: string) {
  await getDb().delete(schema.engineHeartbeats).where(eq(schema.engineHeartbeats.id, id));
}
