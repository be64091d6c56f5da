import type { RequestHandler } from 'express';
import { getSql } from '../db/client';
import { getConfig } from '../app/utils/env.server';

/** Set by this middleware only (a client's own value is removed first): the knowledge base a help host serves. */
export const HELP_KB_HEADER = 'x-parley-help-kb';
const SESSION_COOKIE = '__parley_session';

/**
 * The help centre's own host (ADR 056): `{kbSlug}.HELP_HOST`, or a knowledge base's custom domain (cname), is
 * rewritten to the existing `/hc/{slug}/...` routes. Only those routes are reachable there, the agent session
 * cookie is removed from the request and can never be set in the response, so custom JavaScript that runs on this
 * host has no agent session to read or use.
 */
export function helpHostRouter(): RequestHandler {
  return async (req, res, next) => {
    delete req.headers[HELP_KB_HEADER];
    const found = await helpCentreOfHost((req.headers.host ?? '').toLowerCase()).catch(() => null);
    if (!found) return next();

    req.headers.cookie = withoutCookie(req.headers.cookie, SESSION_COOKIE);
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => {
      if (name.toLowerCase() === 'set-cookie') {
        const list = (Array.isArray(value) ? value : [String(value)]).filter((c) => !c.startsWith(`${SESSION_COOKIE}=`));
        return setHeader(name, list);
      }
      return setHeader(name, value);
    };

    const prefix = `/hc/${found.slug}`;
    const url = req.url === prefix || req.url.startsWith(`${prefix}/`) || req.url.startsWith(`${prefix}?`) ? req.url : `${prefix}${req.url === '/' ? '' : req.url}`;
    // Dot segments must not climb out of the help centre to an agent route.
    const pathname = new URL(url, 'http://help.invalid').pathname;
    if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) {
      res.status(404).type('text/plain').send('Not Found');
      return;
    }
    req.url = url;
    req.originalUrl = url;
    req.headers[HELP_KB_HEADER] = String(found.id);
    next();
  };
}

/** The knowledge base a host names, or null for the agent app's hosts. One indexed query, only on other hosts. */
export async function helpCentreOfHost(hostWithPort: string): Promise<{ id: number; slug: string } | null> {
  const { appHost, helpHost } = getConfig();
  if (!hostWithPort || hostWithPort === appHost || hostWithPort.endsWith(`.${appHost}`) && !(helpHost && hostWithPort.endsWith(`.${helpHost}`))) return null;
  const sql = getSql();
  if (helpHost && hostWithPort.endsWith(`.${helpHost}`)) {
    const label = hostWithPort.slice(0, -(helpHost.length + 1));
    if (!/^[a-z0-9-]{1,63}$/.test(label)) return null;
    // Slugs are unique across the installation since ADR 056; an older duplicate keeps the oldest knowledge base.
    const [row] = await sql<{ id: number; slug: string }[]>`select id, slug from knowledge_bases where slug = ${label} order by id limit 1`;
    return row ?? null;
  }
  const host = hostWithPort.split(':')[0];
  if (!/^[a-z0-9.-]+$/.test(host)) return null;
  const [row] = await sql<{ id: number; slug: string }[]>`select id, slug from knowledge_bases where lower(cname) = ${host} order by id limit 1`;
  return row ?? null;
}

function withoutCookie(header: string | undefined, name: string) {
  if (!header) return header;
  const kept = header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c && !c.startsWith(`${name}=`));
  return kept.length ? kept.join('; ') : undefined;
}
