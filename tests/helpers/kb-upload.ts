import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A multipart/form-data POST as a browser sends a form with a file input, to the test app on its loopback port,
 * with the Host (and Origin) of the account it is for.
 */
export function postMultipart(opts: {
  port: number;
  host: string;
  path: string;
  cookie?: string;
  fields?: Record<string, string>;
  file?: { field: string; filename: string; data: Buffer | string; contentType?: string };
}) {
  const boundary = `----parley${crypto.randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(opts.fields ?? {})) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (opts.file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${opts.file.field}"; filename="${opts.file.filename}"\r\nContent-Type: ${
          opts.file.contentType ?? 'application/octet-stream'
        }\r\n\r\n`,
      ),
      Buffer.isBuffer(opts.file.data) ? opts.file.data : Buffer.from(opts.file.data),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const headers: Record<string, string> = {
    host: opts.host,
    origin: `http://${opts.host}`,
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': String(body.length),
  };
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: opts.port, path: opts.path, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A GET whose body is kept as bytes (downloads). */
export function getBytes(opts: { port: number; host: string; path: string; cookie?: string }) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const headers: Record<string, string> = { host: opts.host };
    if (opts.cookie) headers.cookie = opts.cookie;
    http
      .get({ host: '127.0.0.1', port: opts.port, path: opts.path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
