import { guardedRequest } from './outbound-guard.server';
import { getConfig } from './env.server';
import { parseJsonObject } from './json';

/**
 * The one OAuth 2.0 client (RFC 6749, ADR 097): the authorization request of the web-server flow (4.1.1), the
 * code exchange (4.1.3), refresh (6) and revocation (RFC 7009), with client_secret_post authentication. Every
 * request goes through the outbound guard. Providers differ only in their endpoints and extra parameters, so each
 * caller passes an `OAuth2Provider`; Google's is `googleOAuth2()`.
 */

export type OAuth2Provider = {
  /** Shown in error messages: "Google answered: …". */
  name: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** RFC 7009 revocation endpoint, when the provider has one. */
  revokeUrl?: string;
  clientId: string;
  clientSecret: string;
  /** How the client authenticates at the token and revocation endpoints (RFC 6749 2.3.1): in the form (default) or as HTTP Basic. */
  clientAuth?: 'post' | 'basic';
};

export type OAuth2Tokens = {
  accessToken: string;
  /** The new refresh token, or the one refreshed when the provider did not rotate it (null after a code exchange without one). */
  refreshToken: string | null;
  /** When the access token lapses (null when the provider gave no expires_in). */
  expiresAt: Date | null;
  scope: string | null;
  /** OpenID Connect: the id token's claims, read not verified (it came straight from the token endpoint over TLS, OIDC Core 3.1.3.7). */
  idClaims: Record<string, unknown> | null;
  /** The token answer as sent, for provider extras (Asana's `data` user, Pipedrive's `api_domain`). */
  raw: Record<string, unknown>;
};

/** A failed OAuth call: `status` is the HTTP status (0 when the provider could not be reached), `code` the RFC 6749 5.2 error. */
export class OAuth2Error extends Error {
  constructor(message: string, readonly status: number, readonly code: string | null = null) {
    super(message);
  }
}

const TIMEOUT_MS = 15_000;
const MAX_BYTES = 1024 * 1024;

/** 4.1.1: where the user consents. `extra` carries provider parameters (Google: access_type, prompt). */
export function authorizationUrl(provider: OAuth2Provider, opts: { redirectUri: string; scope: string[]; state: string; extra?: Record<string, string> }) {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: opts.redirectUri,
    scope: opts.scope.join(' '),
    state: opts.state,
    ...opts.extra,
  });
  return `${provider.authorizeUrl}?${params}`;
}

async function post(provider: OAuth2Provider, url: string, fields: Record<string, string>) {
  const basic = provider.clientAuth === 'basic';
  const form = basic ? fields : { ...fields, client_id: provider.clientId, client_secret: provider.clientSecret };
  const body = new URLSearchParams(form).toString();
  let res;
  try {
    res = await guardedRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': 'Parley',
        'content-length': String(Buffer.byteLength(body)),
        ...(basic ? { authorization: `Basic ${Buffer.from(`${provider.clientId}:${provider.clientSecret}`).toString('base64')}` } : {}),
      },
      body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_BYTES,
    });
  } catch (err) {
    throw new OAuth2Error(`${provider.name} could not be reached: ${(err as Error).message}`, 0);
  }
  const json = parseJsonObject(res.text) ?? {};
  if (!res.ok) {
    // RFC 6749 5.2: { error, error_description }; some providers wrap API-style errors as { error: { message } }.
    const e = json.error as { message?: string } | string | undefined;
    const code = typeof e === 'string' ? e : null;
    const message =
      typeof e === 'string' ? `${e}${json.error_description ? `: ${String(json.error_description).slice(0, 200)}` : ''}` : e?.message ?? `HTTP ${res.status}`;
    throw new OAuth2Error(`${provider.name} answered: ${message}`, res.status, code);
  }
  return json;
}

function readTokens(provider: OAuth2Provider, json: Record<string, unknown>, previousRefresh: string | null): OAuth2Tokens {
  // GitHub answers token errors with 200 and { error, error_description }.
  if (typeof json.error === 'string') throw new OAuth2Error(`${provider.name} answered: ${String(json.error_description ?? json.error).slice(0, 200)}`, 400, json.error);
  if (typeof json.access_token !== 'string' || !json.access_token) throw new OAuth2Error(`${provider.name} sent no access token`, 0);
  let idClaims: Record<string, unknown> | null = null;
  if (typeof json.id_token === 'string') {
    try {
      idClaims = JSON.parse(Buffer.from(json.id_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      idClaims = null;
    }
  }
  const expiresIn = Number(json.expires_in);
  return {
    accessToken: json.access_token,
    refreshToken: typeof json.refresh_token === 'string' && json.refresh_token ? json.refresh_token : previousRefresh,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null,
    scope: typeof json.scope === 'string' ? json.scope : null,
    idClaims,
    raw: json,
  };
}

/** 4.1.3: the authorization code for tokens. The redirect URI must be the one the authorization request named. */
export async function exchangeCode(provider: OAuth2Provider, opts: { code: string; redirectUri: string }) {
  const json = await post(provider, provider.tokenUrl, {
    grant_type: 'authorization_code',
    code: opts.code,
    redirect_uri: opts.redirectUri,
  });
  return readTokens(provider, json, null);
}

/** 6: a refresh token for a new access token (and a new refresh token when the provider rotates them). */
export async function refreshTokens(provider: OAuth2Provider, opts: { refreshToken: string }) {
  const json = await post(provider, provider.tokenUrl, {
    grant_type: 'refresh_token',
    refresh_token: opts.refreshToken,
  });
  return readTokens(provider, json, opts.refreshToken);
}

/** RFC 7009: revokes a token (a refresh token revokes the whole grant at Google). A token the provider no longer knows (400) is already revoked. */
export async function revokeToken(provider: OAuth2Provider, opts: { token: string; hint?: 'refresh_token' | 'access_token' }) {
  if (!provider.revokeUrl) return false;
  try {
    await post(provider, provider.revokeUrl, { token: opts.token, ...(opts.hint ? { token_type_hint: opts.hint } : {}) });
    return true;
  } catch (err) {
    if (err instanceof OAuth2Error && err.status === 400) return true;
    throw err;
  }
}

/** Google's endpoints with the installation's OAuth client (GOOGLE_CLIENT_ID/SECRET, bases from GOOGLE_*_BASE); null when not set up. */
export function googleOAuth2(): OAuth2Provider | null {
  const g = getConfig().google;
  if (!g) return null;
  return {
    name: 'Google',
    authorizeUrl: `${g.accountsBase}/o/oauth2/v2/auth`,
    tokenUrl: `${g.oauthBase}/token`,
    revokeUrl: `${g.oauthBase}/revoke`,
    clientId: g.clientId,
    clientSecret: g.clientSecret,
  };
}

/** Google's extra authorization parameters for a refresh token: offline access, and consent again so that Google sends one. */
export const GOOGLE_OFFLINE = { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' } as const;
