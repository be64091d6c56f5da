/**
 * Erlang C (ADR 092). Traffic intensity A = arrivals per hour × handling time in hours (Erlangs); with N agents
 * (N > A) the probability that a customer waits is
 *   C(N, A) = N·B / (N − A·(1 − B)),   B = Erlang B, by the stable recursion B₀ = 1, Bₖ = A·Bₖ₋₁ / (k + A·Bₖ₋₁);
 * the share answered within t seconds is SL = 1 − C(N, A)·e^(−(N − A)·t / h), h the handling time in seconds.
 */
export function erlangC(agents: number, traffic: number): number {
  if (traffic <= 0) return 0;
  if (agents <= traffic) return 1;
  let b = 1;
  for (let k = 1; k <= agents; k++) b = (traffic * b) / (k + traffic * b);
  return (agents * b) / (agents - traffic * (1 - b));
}

export function serviceLevel(opts: { agents: number; traffic: number; targetSeconds: number; handlingSeconds: number }): number {
  if (opts.traffic <= 0) return 1;
  if (opts.agents <= opts.traffic) return 0;
  return 1 - erlangC(opts.agents, opts.traffic) * Math.exp((-(opts.agents - opts.traffic) * opts.targetSeconds) / opts.handlingSeconds);
}

/** The fewest agents that answer `share` (0–1) of arrivals within targetSeconds; 0 when nothing arrives. */
export function agentsNeeded(opts: { arrivalsPerHour: number; handlingSeconds: number; targetSeconds: number; share: number }): number {
  const traffic = (opts.arrivalsPerHour * opts.handlingSeconds) / 3600;
  if (traffic <= 0) return 0;
  for (let n = Math.max(1, Math.floor(traffic) + 1); n < traffic + 1000; n++) {
    if (serviceLevel({ agents: n, traffic, targetSeconds: opts.targetSeconds, handlingSeconds: opts.handlingSeconds }) >= opts.share) return n;
  }
  return Math.ceil(traffic + 1000);
}
