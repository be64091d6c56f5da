import http from 'node:http';

/**
 * A browser's multipart post (text fields and files) to the test app of tests/helpers/http.ts, on an account's
 * host or any other: what a form with `encType="multipart/form-data"` sends.
 */
export function postMultipart(
  port: number,
  path: string,
  opts: {
    domain?: string;
    host?: string;
    cookie?: string;
    fields: Record<string, string>;
    files?: { name: string; filename: string; bytes: Buffer; type?: string }[];
  },
) {
  const boundary = `----parley${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(opts.fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of opts.files ?? []) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: ${
          f.type ?? 'application/octet-stream'
        }\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const host = opts.host ?? `${opts.domain}.${process.env.APP_HOST ?? 'localhost:3000'}`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const headers: Record<string, string> = {
      host,
      origin: `http://${host}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(body.length),
    };
    if (opts.cookie) headers.cookie = opts.cookie;
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
