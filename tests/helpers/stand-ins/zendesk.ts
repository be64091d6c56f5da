import http from 'node:http';

/**
 * A Zendesk Help Center as its public Help Center API answers an anonymous visitor:
 * `GET /api/v2/help_center/{locale}/categories.json | sections.json | articles.json`, offset pagination with
 * `per_page` (at most 100) and an absolute `next_page` URL, `page`, `page_count`, `count`, and the real field names.
 * Unknown locales and paths answer 404 `{"error":"RecordNotFound"}` as Zendesk does. `rateLimitOnce` makes the
 * first request for a given page answer 429 with a Retry-After of one second.
 */
export type ZCategory = { id: number; name: string; description: string; position: number };
export type ZSection = { id: number; category_id: number; name: string; description: string; position: number; parent_section_id?: number | null };
export type ZArticle = { id: number; section_id: number; title: string; body: string; draft?: boolean; position?: number };

export async function startZendeskHelpCenter(data: {
  locale?: string;
  categories: ZCategory[];
  sections: ZSection[];
  articles: ZArticle[];
  rateLimitOnce?: string[];
  attachments?: Record<number, Buffer>;
}) {
  const locale = data.locale ?? 'en-us';
  const requests: string[] = [];
  const limited = new Set<string>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    requests.push(`${url.pathname}${url.search}`);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    // Article attachments (the images of article bodies), as Zendesk serves them on the help centre's address.
    const attachment = /^\/hc\/article_attachments\/(\d+)\/[^/]+$/.exec(url.pathname);
    if (attachment) {
      const file = data.attachments?.[Number(attachment[1])];
      if (!file) return send(404, { error: 'RecordNotFound' });
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(file.length) });
      return res.end(file);
    }
    const m = /^\/api\/v2\/help_center\/([a-z-]+)\/(categories|sections|articles)\.json$/.exec(url.pathname);
    if (!m || m[1] !== locale) return send(404, { error: 'RecordNotFound', description: 'Not found' });
    const kind = m[2] as 'categories' | 'sections' | 'articles';
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30) || 30, 100);
    const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
    const key = `${kind}:${page}`;
    if (data.rateLimitOnce?.includes(key) && !limited.has(key)) {
      limited.add(key);
      return send(429, { error: 'TooManyRequests' }, { 'retry-after': '1' });
    }
    const base = `http://${req.headers.host}/api/v2/help_center/${locale}`;
    const all: object[] =
      kind === 'categories'
        ? data.categories.map((c) => ({
            ...c,
            url: `${base}/categories/${c.id}.json`,
            html_url: `http://${req.headers.host}/hc/${locale}/categories/${c.id}`,
            locale,
            source_locale: locale,
            outdated: false,
            created_at: '2025-01-02T10:00:00Z',
            updated_at: '2025-01-02T10:00:00Z',
          }))
        : kind === 'sections'
        ? data.sections.map((s) => ({
            parent_section_id: null,
            ...s,
            url: `${base}/sections/${s.id}.json`,
            html_url: `http://${req.headers.host}/hc/${locale}/sections/${s.id}`,
            locale,
            source_locale: locale,
            outdated: false,
            sorting: 'manual',
            theme_template: 'section_page',
            created_at: '2025-01-02T10:00:00Z',
            updated_at: '2025-01-02T10:00:00Z',
          }))
        : data.articles.map((a, i) => ({
            id: a.id,
            url: `${base}/articles/${a.id}.json`,
            html_url: `http://${req.headers.host}/hc/${locale}/articles/${a.id}`,
            author_id: 9001,
            comments_disabled: false,
            draft: a.draft ?? false,
            promoted: false,
            position: a.position ?? i,
            vote_sum: 0,
            vote_count: 0,
            section_id: a.section_id,
            created_at: '2025-01-02T10:00:00Z',
            updated_at: '2025-01-03T10:00:00Z',
            edited_at: '2025-01-03T10:00:00Z',
            name: a.title,
            title: a.title,
            source_locale: locale,
            locale,
            outdated: false,
            outdated_locales: [],
            permission_group_id: 7,
            user_segment_id: null,
            content_tag_ids: [],
            label_names: [],
            body: a.body,
          }));
    const pageCount = Math.max(1, Math.ceil(all.length / perPage));
    send(200, {
      [kind]: all.slice((page - 1) * perPage, page * perPage),
      page,
      per_page: perPage,
      page_count: pageCount,
      count: all.length,
      next_page: page < pageCount ? `${base}/${kind}.json?page=${page + 1}&per_page=${perPage}` : null,
      previous_page: page > 1 ? `${base}/${kind}.json?page=${page - 1}&per_page=${perPage}` : null,
      sort_by: 'position',
      sort_order: 'asc',
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
