import { PassThrough } from 'node:stream';
import type { AppLoadContext, EntryContext } from '@remix-run/node';
import { createReadableStreamFromReadable } from '@remix-run/node';
import { isRouteErrorResponse, RemixServer } from '@remix-run/react';
import { isbot } from 'isbot';
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
  const bot = isbot(request.headers.get('user-agent') || '');
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
    const { pipe, abort } = renderToPipeableStream(app, {
      nonce,
      [bot ? 'onAllReady' : 'onShellReady']() {
        shellRendered = true;
        const body = new PassThrough();
        responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
        resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
        pipe(body);
      },
      onShellError(error: unknown) {
        reject(error);
      },
      onError(error: unknown) {
        responseStatusCode = 500;
        if (shellRendered) console.error(error);
      },
    });
    setTimeout(abort, ABORT_DELAY);
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
