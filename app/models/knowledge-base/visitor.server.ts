import crypto from 'node:crypto';

/** The help centre's anonymous visitor id (one feedback answer per visitor and article). No account data in it. */
const NAME = 'hc_visitor';

export function readVisitor(request: Request) {
  const m = /(?:^|;\s*)hc_visitor=([A-Za-z0-9_-]{16,64})/.exec(request.headers.get('cookie') ?? '');
  return m?.[1] ?? null;
}

/** On the account host the cookie stays under /hc; on the help host (ADR 056) the whole host is the help centre. */
export function newVisitor(onHelpHost = false) {
  const id = crypto.randomBytes(16).toString('base64url');
  return { id, setCookie: `${NAME}=${id}; Path=${onHelpHost ? '/' : '/hc'}; Max-Age=31536000; HttpOnly; SameSite=Lax` };
}
