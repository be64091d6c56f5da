import { createCookie } from '@remix-run/node';
import { getConfig } from '../../utils/env.server';
import { singleton } from '../../utils/singleton.server';

/**
 * Section 2: "Selecting a knowledge base remembers its id and name." Kept in a signed cookie (no table needed, ADR
 * 147), per user: the value names the user it belongs to, so whoever signs in next on the same browser starts afresh.
 */
export type LastKnowledgeBase = { id: number; name: string };

function cookie() {
  return singleton('kb-last-cookie', () =>
    createCookie('__parley_kb', { httpOnly: true, sameSite: 'lax', path: '/', maxAge: 60 * 60 * 24 * 365, secrets: [getConfig().sessionSecret] }),
  );
}

/** The Set-Cookie value that remembers this knowledge base for this user. */
export async function rememberKnowledgeBase(opts: { userId: number; kb: LastKnowledgeBase }) {
  return cookie().serialize({ u: opts.userId, id: opts.kb.id, name: opts.kb.name.slice(0, 100) });
}

/** The knowledge base this user chose last on this browser, or null (none, another user's, or a tampered cookie). */
export async function readLastKnowledgeBase(request: Request, userId: number): Promise<LastKnowledgeBase | null> {
  const v = (await cookie().parse(request.headers.get('Cookie'))) as { u?: unknown; id?: unknown; name?: unknown } | null;
  if (!v || v.u !== userId || typeof v.id !== 'number' || typeof v.name !== 'string') return null;
  return { id: v.id, name: v.name };
}

