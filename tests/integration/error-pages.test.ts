import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

function get(host: string, path: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: app.port, path, headers: { host } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
      .on('error', reject);
  });
}

describe('error pages', () => {
  it('404 for an unknown page and an unknown account', async () => {
    for (const [host, path] of [
      ['localhost:3000', '/nope'],
      ['nosuchaccount.localhost:3000', '/signin'],
    ]) {
      const res = await get(host, path);
      expect(res.status).toBe(404);
      expect(res.text).toContain('Sorry, the page is not found!');
      expect(res.text).toContain('Go to Homepage');
    }
  });

  it('418 for a host this installation does not serve', async () => {
    const res = await get('parley.example.org', '/signin');
    expect(res.status).toBe(418);
    expect(res.text).toContain('This host is not served by this Parley installation');
  });

  it('503 "Looks like our API is down" when the database cannot be reached', async () => {
    const { closeDb } = await import('../../db/client');
    const saved = process.env.DATABASE_URL;
    await closeDb();
    process.env.DATABASE_URL = 'postgres://nobody:nothing@127.0.0.1:1/none';
    try {
      const res = await get('someaccount.localhost:3000', '/signin');
      expect(res.status).toBe(503);
      expect(res.text).toContain('Looks like our API is down');
    } finally {
      await closeDb();
      process.env.DATABASE_URL = saved;
    }
  });
});
