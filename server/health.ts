import { getSql } from '../db/client';
import { engineStatus } from '../engine/status';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);

/** 200 when the database answers and an engine consumes events; 503 otherwise. */
export async function checkHealth() {
  let database = false;
  let engine = { running: false, mode: 'inline' as 'inline' | 'external' };
  try {
    await withTimeout(getSql()`select 1`, 2000);
    database = true;
    engine = await withTimeout(engineStatus(), 2000);
  } catch {
    /* reported as down below */
  }
  return { ok: database && engine.running, database: database ? 'up' : 'down', engine: engine.running ? 'up' : 'down', engineMode: engine.mode };
}
