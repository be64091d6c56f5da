import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A real CalDAV server for the tests: Debian's Radicale (`apt-get install radicale`, see .ci/run) on a free port,
 * with a temporary storage folder and htpasswd (plain) auth for one user, and one calendar collection made with
 * MKCALENDAR. `request` speaks to it as that user, to put busy events in or read what Parley wrote.
 */
export const RADICALE_BIN = '/usr/bin/radicale';

export function radicaleInstalled() {
  return fs.existsSync(RADICALE_BIN);
}

function freePort() {
  return new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startRadicale(opts: { username?: string; password?: string } = {}) {
  const username = opts.username ?? 'alice';
  const password = opts.password ?? 'correct horse';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-radicale-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'users'), `${username}:${password}\n`);
  fs.writeFileSync(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[rights]',
      'type = owner_only',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(RADICALE_BIN, ['--config', path.join(dir, 'config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const base = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const request = (method: string, urlPath: string, body?: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${base}${urlPath}`,
        { method, headers: { authorization: auth, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  // Ready when it answers (the machine may be slow: up to 30 seconds).
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`radicale exited: ${stderr}`);
    try {
      await request('OPTIONS', '/');
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`radicale did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const calendarPath = `/${username}/work/`;
  const made = await request('MKCALENDAR', calendarPath);
  if (made.status !== 201) throw new Error(`MKCALENDAR answered ${made.status}: ${made.text}`);
  return {
    base,
    username,
    password,
    calendarUrl: `${base}${calendarPath}`,
    calendarPath,
    request,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
