import { Writable } from 'node:stream';
import type { AppLoadContext, EntryContext } from '@remix-run/node';
import { isRouteErrorResponse, RemixServer } from '@remix-run/react';
import { renderToPipeableStream } from 'react-dom/server';
import { contentSecurityPolicy } from '../server/security-headers';
import { getLogger } from './utils/logger.server';
import { NonceProvider } from './utils/nonce-provider';

const ABORT_DELAY = 5_000;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext = {},
) {
  const nonce = typeof loadContext.cspNonce === 'string' ? loadContext.cspNonce : '';
  // Every HTML page gets the policy; a route may only widen who may frame it (the contact form).
  const framing = /frame-ancestors ([^;]+)/.exec(responseHeaders.get('Content-Security-Policy') ?? '')?.[1];
  responseHeaders.set('Content-Security-Policy', contentSecurityPolicy(nonce, framing, request.headers.has('x-parley-help-kb')));
  return new Promise((resolve, reject) => {
    let shellRendered = false;
    const app = (
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>
    );
    // The whole document is rendered first and sent as one buffer (ADR 110): pages stream nothing that arrives
    // late, so streaming only cost a write, a web-stream hop and (with compression) a flush per React chunk. Every
    // client gets the finished HTML (no Suspense fallbacks swapped in by script), as bots always did.
    const chunks: Buffer[] = [];
    const document = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
        responseHeaders.set('Content-Length', String(body.length));
        resolve(new Response(body, { headers: responseHeaders, status: responseStatusCode }));
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(app, {
      nonce,
      onShellReady() {
        shellRendered = true;
      },
      onAllReady() {
        pipe(document);
      },
      onShellError(error: unknown) {
        clearTimeout(timer);
        reject(error);
      },
      onError(error: unknown) {
        responseStatusCode = 500;
        if (shellRendered) console.error(error);
      },
    });
    // A render that never finishes is cut off; the timer goes with the render, so it holds no finished page.
    const timer = setTimeout(abort, ABORT_DELAY);
  });
}

/**
 * What Remix reports: a request Remix itself refuses (a 4xx such as an unknown route or method) is one log line,
 * without a stack trace; a real server error keeps its stack.
 */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  const url = new URL(request.url);
  if (isRouteErrorResponse(error) && error.status < 500) {
    getLogger().warn({ method: request.method, path: url.pathname, status: error.status, reason: String(error.statusText || error.data).slice(0, 200) }, 'bad request');
    return;
  }
  getLogger().error({ method: request.method, path: url.pathname, err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) }, 'server error');
}
