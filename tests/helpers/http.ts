import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { createApp } from '../../server/app';
import { startLiveServer } from '../../server/ws';
import { startSession } from '../../app/utils/session.server';

/**
 * The real Express app (CSRF check, request log, Remix build) on an ephemeral loopback port. Requests
 * carry the Host header of the account they are for, as a browser on `{domain}.APP_HOST` would.
 */
export async function startTestApp() {
  const build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  const app = await createApp({ build, publicDir: path.resolve('public') });
  const server = http.createServer(app);
  const live = await startLiveServer(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const appHost = process.env.APP_HOST ?? 'localhost:3000';

  async function request(
    pathname: string,
    opts: { domain?: string; host?: string; method?: string; form?: Record<string, string | string[]>; cookie?: string; origin?: string | null; accept?: string } = {},
  ) {
    const host = opts.host ?? (opts.domain ? `${opts.domain}.${appHost}` : appHost);
    const method = opts.method ?? (opts.form ? 'POST' : 'GET');
    let body: string | undefined;
    if (opts.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
      body = params.toString();
    }
    const headers: Record<string, string> = { host };
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.accept) headers.accept = opts.accept;
    if (method !== 'GET' && opts.origin !== null) headers.origin = opts.origin ?? `http://${host}`;
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: pathname, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  return {
    port,
    request,
    live,
    close: async () => {
      await live.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A signed-in cookie for the user on their account's host, made the way sign-in makes it. */
export async function sessionCookie(opts: { domain: string; accountId: number; userId: number }) {
  const appHost = process.env.APP_HOST ?? 'localhost:3000';
  const setCookie = await startSession(new Request(`http://${opts.domain}.${appHost}/signin`), { accountId: opts.accountId, userId: opts.userId, remember: false });
  return setCookie.split(';')[0];
}
