import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A custom SMS gateway as docs/custom-sms.md describes one: it receives Parley's signed JSON and checks the
 * signature with its own code (HMAC-SHA256 of "<t>.<body>" with the shared secret, hex), and signs what it posts
 * to Parley the same way.
 */
export function gatewaySign(secret: string, body: string, t = Math.floor(Date.now() / 1000)) {
  return `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

export async function startSmsGateway(opts: { secret: () => string; answerId?: (n: number) => string | null; status?: number }) {
  const received: { body: Record<string, unknown>; signatureValid: boolean }[] = [];
  const checks: { body: Record<string, unknown>; raw: string; header: string }[] = [];
  let checkStatus: number | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const header = String(req.headers['x-parley-signature'] ?? '');
      const t = /t=(\d+)/.exec(header)?.[1] ?? '';
      const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1] ?? '';
      const expected = crypto.createHmac('sha256', opts.secret()).update(`${t}.${raw}`).digest('hex');
      const signatureValid = v1.length === 64 && crypto.timingSafeEqual(Buffer.from(v1), Buffer.from(expected)) && Math.abs(Date.now() / 1000 - Number(t)) < 300;
      const body = JSON.parse(raw) as Record<string, unknown>;
      // Parley's connection check when an inbox is saved, kept apart (with what to verify it by later).
      if (body.type === 'check') {
        checks.push({ body, raw, header });
        res.statusCode = checkStatus ?? 200;
        return res.end('{}');
      }
      received.push({ body, signatureValid });
      res.statusCode = opts.status ?? 200;
      res.setHeader('content-type', 'application/json');
      const id = opts.answerId?.(received.length) ?? null;
      res.end(JSON.stringify(id ? { id } : { ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/parley`,
    received,
    checks,
    /** The status the next checks get (null: 200). */
    answerChecksWith: (status: number | null) => {
      checkStatus = status;
    },
    close: () => new Promise<void>((r) => server.close(() => r())) };
}
