/**
 * Where a CPU profile's time goes: self time by function and by package/file, top entries.
 * Run: npx tsx bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [top=40]
 */
import fs from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
const file = process.argv[2];
const top = Number(process.argv[3] ?? 40);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
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
console.log(`total ${(total / 1e6).toFixed(1)} s sampled`);
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
