import crypto from 'node:crypto';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';

/**
 * Response headers that protect every page (ADR 023):
 * - a nonce per request for the Content-Security-Policy that app/entry.server.tsx puts on every HTML page; an HTML
 *   response made elsewhere (a resource route such as the API reference, an Express endpoint) without a policy of
 *   its own gets the same one as it is sent (ADR 144), so that no HTML leaves without one;
 * - `Cache-Control: private, no-store` on everything a signed-in browser asks for (pages, data, downloads), unless
 *   the route says otherwise (public, cacheable assets never carry the session cookie);
 * - HSTS when the request arrived over HTTPS (directly, or through a proxy named in TRUST_PROXY).
 */
export function securityHeaders() {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const nonce = crypto.randomBytes(16).toString('base64');
    res.locals.cspNonce = nonce;
    const writeHead = res.writeHead;
    res.writeHead = function (this: ExpressResponse, ...args: Parameters<typeof writeHead>) {
      if (!this.headersSent && !this.hasHeader('content-security-policy') && isHtml(this.getHeader('content-type'), args)) {
        this.setHeader('Content-Security-Policy', contentSecurityPolicy(nonce));
      }
      return writeHead.apply(this, args);
    } as typeof writeHead;
    if (/(?:^|;\s*)__parley_session=/.test(req.headers.cookie ?? '')) res.setHeader('Cache-Control', 'private, no-store');
    if (req.secure) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    next();
  };
}

/** Whether a response is HTML, by the Content-Type set on it or passed to writeHead (as an object or a flat list). */
function isHtml(type: unknown, args: unknown[]) {
  if (typeof type === 'string') return /^\s*text\/html/i.test(type);
  for (const a of args) {
    if (Array.isArray(a)) {
      for (let i = 0; i + 1 < a.length; i += 2) if (String(a[i]).toLowerCase() === 'content-type') return /^\s*text\/html/i.test(String(a[i + 1]));
    } else if (a && typeof a === 'object') {
      for (const [k, v] of Object.entries(a)) if (k.toLowerCase() === 'content-type') return /^\s*text\/html/i.test(String(v));
    }
  }
  return false;
}

/**
 * The policy of an HTML page. Parley's own scripts (Remix's inline bootstrap and its modules) carry the nonce, and
 * no other script runs: mail HTML shown to agents is sanitised and has no script either way. Styles allow inline
 * `style` attributes (React's style props). `framing` is the route's frame-ancestors (today: only the contact form
 * may be framed by other sites; everything else only by Parley itself).
 */
export function contentSecurityPolicy(nonce: string, framing = "'self'", helpHost = false) {
  // The help host (ADR 056) has no agent session: its custom JavaScript (with the nonce) and Google Analytics run there only.
  const analytics = helpHost ? ' https://www.googletagmanager.com' : '';
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${analytics}`,
    // The agents' service worker, /agent-sw.js (ADR 155): same origin only (stated, not left to the script-src fallback).
    "worker-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src 'self'${helpHost ? ' https://*.google-analytics.com https://*.analytics.google.com https://www.googletagmanager.com' : ''}`,
    "media-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    `frame-ancestors ${framing}`,
  ].join('; ');
}
