/** The part of autocannon's API the benches use (the package ships no types). */
declare module 'autocannon' {
  type Histogram = { average: number; p50: number; p97_5: number; p99: number; max: number };
  type Result = { requests: Histogram; latency: Histogram; throughput: Histogram; non2xx: number; errors: number };
  function autocannon(opts: { url: string; connections?: number; duration?: number; headers?: Record<string, string> }): Promise<Result>;
  export default autocannon;
}
