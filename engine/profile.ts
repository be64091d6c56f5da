/**
 * Where the engine's time goes (ADR 108): wall-clock milliseconds and counts per phase, summed while
 * PARLEY_ENGINE_PROFILE=1 (bench/engine.ts sets it with BENCH_PROFILE=1). Off, `timed` is a plain call.
 */
// On globalThis: tsx may load this module more than once (one copy per importer path).
const totals: Map<string, { ms: number; n: number }> = ((globalThis as Record<string, unknown>).__parleyEngineProfile ??= new Map()) as never;

export const profiling = () => process.env.PARLEY_ENGINE_PROFILE === '1';

export async function timed<T>(phase: string, run: () => Promise<T>): Promise<T> {
  if (!profiling()) return run();
  const t = performance.now();
  try {
    return await run();
  } finally {
    const row = totals.get(phase) ?? { ms: 0, n: 0 };
    row.ms += performance.now() - t;
    row.n++;
    totals.set(phase, row);
  }
}

export function profileSnapshot() {
  return [...totals.entries()].map(([phase, r]) => ({ phase, ms: r.ms, n: r.n }));
}

export function resetProfile() {
  totals.clear();
}
