import http from 'node:http';

/**
 * Local stand-ins for the review APIs Parley reads (ADR 068), speaking their wire formats: Google Business Profile
 * (My Business v4: GET {location}/reviews with pageSize/pageToken, PUT {review}/reply) and Trustpilot (GET
 * business-units/{id}/reviews with apikey/page, POST private/reviews/{id}/reply with a bearer token).
 */
export type StandIn = { url: string; requests: { method: string; path: string; auth?: string; body?: unknown }[]; close: () => Promise<void> };

type GoogleReview = { reviewId: string; name: string; reviewer: { displayName: string; isAnonymous?: boolean }; starRating: string; comment?: string; createTime: string; updateTime: string; reviewReply?: { comment: string; updateTime: string } };

function listen(handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse, state: StandIn) => void): Promise<StandIn> {
  const state = { url: '', requests: [] as StandIn['requests'], close: async () => {} } as StandIn;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let parsed: unknown = body || undefined;
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {
        // form-encoded (OAuth token requests): kept as text
      }
      state.requests.push({ method: req.method ?? 'GET', path: req.url ?? '', auth: req.headers.authorization, body: parsed });
      handler(req, body, res, state);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      state.close = () => new Promise<void>((r) => server.close(() => r()));
      resolve(state);
    }),
  );
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const STARS = ['', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE'];

/**
 * Google's v4 API for one location, two reviews a page. It accepts `token`, and — with `oauth` — the access tokens its
 * OAuth token endpoint (`POST /token`, grant_type=refresh_token, form-encoded, Google's answers and errors) issues for
 * the refresh token, each valid `expiresIn` seconds.
 */
export async function startGoogleReviews(opts: {
  location: string;
  token: string;
  reviews: { id: string; name: string; rating: number; comment?: string; at?: string }[];
  oauth?: { clientId: string; clientSecret: string; refreshToken: string; expiresIn?: number; deny?: boolean };
}) {
  const issued = new Map<string, number>();
  let refreshes = 0;
  const reviews: GoogleReview[] = opts.reviews.map((r) => ({
    reviewId: r.id,
    name: `${opts.location}/reviews/${r.id}`,
    reviewer: { displayName: r.name },
    starRating: STARS[r.rating],
    comment: r.comment,
    createTime: r.at ?? '2026-11-20T10:00:00Z',
    updateTime: r.at ?? '2026-11-20T10:00:00Z',
  }));
  const codes = new Map<string, string>();
  let revoked = 0;
  const standIn = await listen((req, body, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    // The consent page (accounts.google.com/o/oauth2/v2/auth): approves at once and sends the user back with a code.
    if (req.method === 'GET' && u.pathname === '/o/oauth2/v2/auth' && opts.oauth) {
      if (u.searchParams.get('client_id') !== opts.oauth.clientId) return json(res, 400, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
      if (u.searchParams.get('response_type') !== 'code' || !u.searchParams.get('scope')?.includes('business.manage')) return json(res, 400, { error: 'invalid_request' });
      const code = `4/code-${codes.size + 1}`;
      codes.set(code, u.searchParams.get('redirect_uri') ?? '');
      const back = new URL(u.searchParams.get('redirect_uri') ?? '');
      if (opts.oauth.deny) back.searchParams.set('error', 'access_denied');
      else back.searchParams.set('code', code);
      back.searchParams.set('state', u.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && req.url === '/revoke' && opts.oauth) {
      const token = new URLSearchParams(body).get('token');
      if (token !== opts.oauth.refreshToken && !issued.has(token ?? '')) return json(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
      revoked++;
      return json(res, 200, {});
    }
    if (req.method === 'POST' && req.url === '/token' && opts.oauth) {
      const p = new URLSearchParams(body);
      if (p.get('client_id') !== opts.oauth.clientId || p.get('client_secret') !== opts.oauth.clientSecret) return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
      if (p.get('grant_type') === 'authorization_code') {
        const redirectUri = codes.get(p.get('code') ?? '');
        if (redirectUri === undefined || redirectUri !== p.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
        codes.delete(p.get('code')!);
        const access = `ya29.consented-${codes.size}-${Date.now()}`;
        issued.set(access, Date.now() + 3599_000);
        const idToken = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ email: 'owner@business.test', iss: 'https://accounts.google.com' })).toString('base64url')}.sig`;
        return json(res, 200, { access_token: access, expires_in: 3599, refresh_token: opts.oauth.refreshToken, scope: 'https://www.googleapis.com/auth/business.manage openid email', token_type: 'Bearer', id_token: idToken });
      }
      if (p.get('grant_type') !== 'refresh_token') return json(res, 400, { error: 'unsupported_grant_type' });
      if (p.get('refresh_token') !== opts.oauth.refreshToken) return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      refreshes++;
      const access = `ya29.refreshed-${refreshes}`;
      const expiresIn = opts.oauth.expiresIn ?? 3599;
      issued.set(access, Date.now() + expiresIn * 1000);
      return json(res, 200, { access_token: access, expires_in: expiresIn, scope: 'https://www.googleapis.com/auth/business.manage', token_type: 'Bearer' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const valid = bearer === opts.token || (issued.get(bearer) ?? 0) > Date.now();
    if (!valid)
      return json(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === `/${opts.location}/reviews`) {
      const size = Math.min(Number(url.searchParams.get('pageSize') ?? 50), 2);
      const start = Number(url.searchParams.get('pageToken') ?? 0);
      const page = reviews.slice(start, start + size);
      return json(res, 200, { reviews: page, averageRating: 4.5, totalReviewCount: reviews.length, ...(start + size < reviews.length ? { nextPageToken: String(start + size) } : {}) });
    }
    const reply = /^\/(.+\/reviews\/[^/]+)\/reply$/.exec(url.pathname);
    if (req.method === 'PUT' && reply) {
      const review = reviews.find((r) => r.name === reply[1]);
      if (!review) return json(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
      const { comment } = JSON.parse(body) as { comment: string };
      review.reviewReply = { comment, updateTime: new Date().toISOString() };
      return json(res, 200, review.reviewReply);
    }
    json(res, 404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
  });
  return { ...standIn, reviews, refreshes: () => refreshes, revoked: () => revoked };
}

/** Trustpilot's business-unit reviews (API key) and private replies (bearer token). */
export async function startTrustpilot(opts: { businessUnitId: string; apiKey: string; token: string; reviews: { id: string; name: string; stars: number; title?: string; text?: string }[] }) {
  return listen((req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === `/business-units/${opts.businessUnitId}/reviews`) {
      if (url.searchParams.get('apikey') !== opts.apiKey) return json(res, 401, { message: 'Unauthorized' });
      const page = Number(url.searchParams.get('page') ?? 1);
      const per = Math.min(Number(url.searchParams.get('perPage') ?? 20), 100);
      const items = opts.reviews.slice((page - 1) * per, page * per).map((r) => ({
        id: r.id,
        stars: r.stars,
        title: r.title ?? '',
        text: r.text ?? '',
        createdAt: '2026-11-21T09:00:00Z',
        consumer: { displayName: r.name },
        companyReply: null,
      }));
      const links = page * per < opts.reviews.length ? [{ href: '...', method: 'GET', rel: 'next-page' }] : [];
      return json(res, 200, { reviews: items, links });
    }
    const reply = /^\/private\/reviews\/([^/]+)\/reply$/.exec(url.pathname);
    if (req.method === 'POST' && reply) {
      if (req.headers.authorization !== `Bearer ${opts.token}`) return json(res, 401, { message: 'Unauthorized' });
      const { message } = JSON.parse(body) as { message: string };
      if (!message) return json(res, 400, { message: 'message is required' });
      res.writeHead(201);
      return res.end();
    }
    json(res, 404, { message: 'Not found' });
  });
}

/**
 * Facebook's Graph API for one Page: GET /{page-id}/ratings with the Page access token (Authorization: Bearer or
 * access_token), two ratings a page, cursor paging (`paging.cursors.after`, `paging.next`), Graph errors
 * ({ error: { message, type, code } }).
 */
export async function startFacebookRatings(opts: { pageId: string; token: string; ratings: { id: string; reviewer: string; type?: 'positive' | 'negative'; rating?: number; text?: string }[] }) {
  /** Comments the Page posted on rating stories (POST /{story-id}/comments, JSON or form-encoded `message`). */
  const comments: { storyId: string; message: string }[] = [];
  const standIn = await listen((req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? url.searchParams.get('access_token');
    if (token !== opts.token) return json(res, 400, { error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } });
    if (req.method === 'GET' && url.pathname === `/${opts.pageId}/ratings`) {
      const start = Number(url.searchParams.get('after') ?? 0);
      const items = opts.ratings.slice(start, start + 2).map((r) => ({
        created_time: '2026-11-22T08:00:00+0000',
        ...(r.type ? { recommendation_type: r.type } : {}),
        ...(r.rating ? { rating: r.rating } : {}),
        ...(r.text ? { review_text: r.text } : {}),
        reviewer: { id: `u${r.id}`, name: r.reviewer },
        open_graph_story: { id: `story_${r.id}` },
      }));
      const more = start + 2 < opts.ratings.length;
      return json(res, 200, { data: items, paging: { cursors: { before: String(start), after: String(start + 2) }, ...(more ? { next: `https://graph.facebook.com/v19.0/${opts.pageId}/ratings?after=${start + 2}` } : {}) } });
    }
    const comment = /^\/(story_[^/]+)\/comments$/.exec(url.pathname);
    if (req.method === 'POST' && comment) {
      if (!opts.ratings.some((r) => `story_${r.id}` === comment[1])) return json(res, 400, { error: { message: `Unsupported post request. Object with ID '${comment[1]}' does not exist`, type: 'GraphMethodException', code: 100 } });
      let message: unknown;
      try {
        message = (JSON.parse(body) as { message?: unknown }).message;
      } catch {
        message = new URLSearchParams(body).get('message');
      }
      if (typeof message !== 'string' || !message) return json(res, 400, { error: { message: '(#100) Missing message or attachment', type: 'OAuthException', code: 100 } });
      comments.push({ storyId: comment[1], message });
      return json(res, 200, { id: `${comment[1]}_c${comments.length}` });
    }
    json(res, 404, { error: { message: 'Unknown path components', type: 'OAuthException', code: 2500 } });
  });
  return { ...standIn, comments };
}
