/**
 * JavaScript a screen ships to the browser, gzipped: the client entry, every route module of the screen's
 * route chain (root → layout → leaf) and the shared chunks each one imports, counted once, as Remix's
 * manifest lists them for a first load. Run after `npm run build`: `npx tsx bench/js-weight.ts [--json]`.
 * Lazily imported modules (none today) and the inline route manifest in the HTML are not counted.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

type ManifestRoute = { id: string; parentId?: string; module: string; imports?: string[]; path?: string; index?: boolean };
type Manifest = { entry: { module: string; imports?: string[] }; routes: Record<string, ManifestRoute> };

const publicDir = path.resolve('public');
const buildDir = path.join(publicDir, 'build');
const manifestFile = fs.readdirSync(buildDir).find((f) => /^manifest-.*\.js$/.test(f));
if (!manifestFile) throw new Error('No build found: run `npm run build` first.');
const manifest: Manifest = JSON.parse(fs.readFileSync(path.join(buildDir, manifestFile), 'utf8').replace(/^window\.__remixManifest=/, '').replace(/;\s*$/, ''));

const sizes = new Map<string, number>();
function gz(file: string) {
  let n = sizes.get(file);
  if (n === undefined) {
    n = zlib.gzipSync(fs.readFileSync(path.join(publicDir, file)), { level: 6 }).length;
    sizes.set(file, n);
  }
  return n;
}

function chain(id: string) {
  const out: ManifestRoute[] = [];
  for (let r: ManifestRoute | undefined = manifest.routes[id]; r; r = r.parentId ? manifest.routes[r.parentId] : undefined) out.unshift(r);
  return out;
}

const parents = new Set(Object.values(manifest.routes).map((r) => r.parentId).filter(Boolean));
const leaves = Object.values(manifest.routes).filter((r) => !parents.has(r.id) && r.id !== 'root' && !r.id.startsWith('routes/webhooks') && !r.id.startsWith('routes/public.widget'));
const rows = leaves.map((leaf) => {
  const files = new Set<string>([manifest.entry.module, ...(manifest.entry.imports ?? [])]);
  for (const r of chain(leaf.id)) {
    files.add(r.module);
    for (const i of r.imports ?? []) files.add(i);
  }
  const bytes = [...files].reduce((sum, f) => sum + gz(f), 0);
  return { route: leaf.id.replace(/^routes\//, ''), kb: Math.round(bytes / 102.4) / 10 };
});
rows.sort((a, b) => b.kb - a.kb);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
else {
  for (const r of rows) console.log(`${r.kb.toFixed(1).padStart(7)} KB  ${r.route}`);
  const kbs = rows.map((r) => r.kb).sort((a, b) => a - b);
  console.log(`screens ${rows.length}; median ${kbs[Math.floor(kbs.length / 2)]} KB; max ${kbs[kbs.length - 1]} KB (gzip level 6)`);
}
