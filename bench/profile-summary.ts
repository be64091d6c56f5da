/**
 * Where a CPU profile's time goes: self time by function and by package/file, top entries.
 * Run: npx tsx bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [top=40]   (or a .heapprofile: bytes allocated instead)
 */
import fs from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
const file = process.argv[2];
const top = Number(process.argv[3] ?? 40);
type HeapNode = { id: number; callFrame: Node['callFrame']; selfSize: number; children: HeapNode[] };
const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
// A sampled heap profile (bench/page-costs.ts BENCH_ALLOC_PROFILE) reads the same way, in bytes allocated instead of time.
const bytes = 'head' in raw;
const self = new Map<number, number>();
const profile = bytes ? { nodes: [] as Node[] } : (raw as { nodes: Node[]; samples: number[]; timeDeltas: number[] });
if (bytes) {
  const flatten = (h: HeapNode) => {
    profile.nodes.push({ id: h.id, callFrame: h.callFrame, children: h.children.map((c) => c.id) });
    self.set(h.id, h.selfSize);
    h.children.forEach(flatten);
  };
  flatten(raw.head);
} else {
  const cpu = raw as { samples: number[]; timeDeltas: number[] };
  cpu.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (cpu.timeDeltas[i] ?? 0)));
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (url: string) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
};
const fns = new Map<string, number>();
const places = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const place = where(n.callFrame.url);
  const fn = `${n.callFrame.functionName || '(anonymous)'}  ${place}:${n.callFrame.lineNumber + 1}`;
  fns.set(fn, (fns.get(fn) ?? 0) + t);
  places.set(place, (places.get(place) ?? 0) + t);
}
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, t]) => console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${k}`));
};
console.log(bytes ? `total ${(total / 2 ** 20).toFixed(1)} MiB allocated (sampled)` : `total ${(total / 1e6).toFixed(1)} s sampled`);
show('self time by package or file', places);
show('self time by function', fns);

// Inclusive time of the app's own functions (build/ and server code): what each loader or helper costs with its callees.
const inclusive = new Map<number, number>();
const visit = (id: number): number => {
  const n = byId.get(id)!;
  let t = self.get(id) ?? 0;
  for (const c of n.children ?? []) t += visit(c);
  inclusive.set(id, t);
  return t;
};
visit(profile.nodes[0].id);
const appFns = new Map<string, number>();
for (const n of profile.nodes) {
  const place = where(n.callFrame.url);
  if (!place.startsWith('build/')) continue;
  const fn = `${n.callFrame.functionName || '(anonymous)'}  ${place}:${n.callFrame.lineNumber + 1}`;
  appFns.set(fn, (appFns.get(fn) ?? 0) + (inclusive.get(n.id) ?? 0));
}
show("inclusive time of the app's functions (a recursive function counts more than once)", appFns);
