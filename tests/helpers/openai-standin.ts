import http from 'node:http';

/**
 * An OpenAI-compatible chat-completions server (POST /v1/chat/completions), as OpenAI documents the wire format:
 * bearer key, JSON request; `stream: true` answers server-sent events (`data: {chat.completion.chunk}` lines, a
 * final usage chunk when `stream_options.include_usage`, then `data: [DONE]`); otherwise one `chat.completion`.
 * Errors are OpenAI's error body with 401 (bad key), 429 (with Retry-After), 500; `hang` never answers (timeouts).
 */
export type StandinMode = 'ok' | 'unauthorized' | 'rate_limited' | 'server_error' | 'hang' | 'hang_mid_stream';

export async function startOpenAiStandin(opts: { apiKey?: string; answer?: (body: ChatRequest) => string } = {}) {
  const requests: { headers: http.IncomingHttpHeaders; body: ChatRequest }[] = [];
  let mode: StandinMode = 'ok';
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return error(res, 404, 'invalid_request_error', 'Unknown URL');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      requests.push({ headers: req.headers, body });
      if (mode === 'hang') return;
      if (mode === 'unauthorized' || (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)) {
        return error(res, 401, 'invalid_request_error', 'Incorrect API key provided', 'invalid_api_key');
      }
      if (mode === 'rate_limited') {
        res.setHeader('retry-after', '20');
        return error(res, 429, 'rate_limit_exceeded', 'Rate limit reached', 'rate_limit_exceeded');
      }
      if (mode === 'server_error') return error(res, 500, 'server_error', 'The server had an error while processing your request.');
      const text = (opts.answer ?? defaultAnswer)(body);
      const promptTokens = Math.ceil(body.messages.reduce((n, m) => n + m.content.length, 0) / 4);
      const completionTokens = Math.ceil(text.length / 4);
      const id = `chatcmpl-${requests.length}`;
      const created = Math.floor(Date.now() / 1000);
      if (!body.stream) {
        res.setHeader('content-type', 'application/json');
        return res.end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const chunk = (choices: unknown[], usage: unknown = null) =>
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, usage })}\n\n`);
      res.write(': keep-alive\n\n');
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
      const pieces = text.match(/.{1,12}/gs) ?? [];
      for (const [i, piece] of pieces.entries()) {
        if (mode === 'hang_mid_stream' && i === 1) return;
        chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]);
      }
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
      if (body.stream_options?.include_usage) chunk([], { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens });
      res.end('data: [DONE]\n\n');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setMode: (m: StandinMode) => {
      mode = m;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export type ChatRequest = {
  model: string;
  messages: { role: string; content: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
};

function error(res: http.ServerResponse, status: number, type: string, message: string, code: string | null = null) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: { message, type, param: null, code } }));
}

/** A deterministic answer that shows what it was asked: the style of a rewrite, and a citation when an article was given. */
function defaultAnswer(body: ChatRequest) {
  const prompt = body.messages.at(-1)?.content ?? '';
  const cite = prompt.includes('[1] ') ? ' [1]' : '';
  const style = /Task: Rewrite[\s\S]*?\. (.+?)\. Keep/.exec(prompt)?.[1];
  if (style) return `Rewritten (${style.toLowerCase()}): Thanks for waiting, your parcel is on its way.${cite}`;
  return `Hello! Your parcel ships within two working days.${cite}`;
}
