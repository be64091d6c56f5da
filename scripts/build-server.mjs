// Compiles the Node side (server, engine, CLI, seed) into build/server/ at build time, so starting Parley runs
// plain JavaScript instead of compiling TypeScript on every start (ADR 030). Dependencies stay in node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const outdir = path.resolve('build/server');
fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { index: 'server/index.ts', engine: 'engine/main.ts', cli: 'server/cli.ts'},
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  outExtension: { '.js': '.js' },
  logLevel: 'warning',
});
// db/migrate.ts finds its SQL beside itself; in the bundle "beside itself" is build/server.
fs.cpSync('db/migrations', path.join(outdir, 'migrations'), { recursive: true });
// Its version is the one db/migrate.ts records in schema_upgrades and names when it meets a newer schema (ADR 154).
const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
fs.writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify({ type: 'module', version })}\n`);
