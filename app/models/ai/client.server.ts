import http from 'node:http';
import https from 'node:https';
import { assertAllowedLiteral, guardedLookup, OutboundRefusedError } from '../../utils/outbound-guard.server';

/**
 * A client of the OpenAI chat-completions wire format (ADR 081): POST {base}/chat/completions with `stream: true`,
 * read as server-sent events (`data: {json}` chunks, then `data: [DONE]`). Any compatible server works (OpenAI,
 * Azure-style proxies, vLLM, Ollama, llama.cpp). Every connection goes through the outbound guard, so a private
 * address is refused unless PARLEY_ALLOW_PRIVATE_DESTINATIONS is set. Redirects are not followed.
 */

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };
export type Usage = { promptTokens: number; completionTokens: number };
export type ChatChunk = { delta: string } | { usage: Usage };

export type AiErrorKind = 'auth' | 'rate_limited' | 'server' | 'timeout' | 'refused' | 'bad_response' | 'network';

/** What went wrong, in words an agent can act on; never the server's own body (it may echo the key or the prompt). */
export class AiServerError extends Error {
  constructor(
    public readonly kind: AiErrorKind,
    message: string,
    public readonly status?: number,
    public readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Retry-After is seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function errorForStatus(status: number, retryAfter: string | undefined) {
  if (status === 401 || status === 403) return new AiServerError('auth', `The AI server refused the API key (${status}). Check the key in Settings → AI Help.`, status);
  if (status === 429) {
    const wait = parseRetryAfter(retryAfter);
    return new AiServerError('rate_limited', `The AI server is busy (too many requests)${wait !== undefined ? `: try again in ${wait} seconds` : ': try again shortly'}.`, status, wait);
  }
  if (status === 404) return new AiServerError('bad_response', 'The AI server does not know this address or model (404). Check the base URL and the model in Settings → AI Help.', status);
  if (status >= 500) return new AiServerError('server', `The AI server failed (${status}). Try again in a moment.`, status);
  return new AiServerError('bad_response', `The AI server refused the request (${status}).`, status);
}

/**
 * Streams one chat completion. Yields text deltas as they arrive, and the usage when the server reports it
 * (`stream_options.include_usage`). `timeoutMs` bounds the wait for each piece of the answer, not the whole answer.
 */
export async function* streamChatCompletion(opts: {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  messages: ChatMessage[];
  timeoutMs: number;
  maxTokens?: number;
  signal?: AbortSignal;
}): AsyncGenerator<ChatChunk> {
  const url = new URL(`${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`);
  const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
  if (!client) throw new AiServerError('bad_response', 'The AI server address must start with http:// or https://');
  try {
    assertAllowedLiteral(url.hostname);
  } catch (err) {
    throw refusedError(err);
  }
  const body = JSON.stringify({
    model: opts.model,
    messages: opts.messages,
    stream: true,
    stream_options: { include_usage: true },
    temperature: 0.3,
    max_tokens: opts.maxTokens ?? 800,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': String(Buffer.byteLength(body)) };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;

  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = client.request(url, { method: 'POST', headers, lookup: guardedLookup as never, agent: false, timeout: opts.timeoutMs, signal: opts.signal }, resolve);
    req.on('timeout', () => req.destroy(new AiServerError('timeout', 'The AI server did not answer in time. Try again, or ask an administrator to check it.')));
    req.on('error', (err) => reject(toAiError(err)));
    req.end(body);
  });
  // The same idle limit while the answer streams in.
  res.setTimeout(opts.timeoutMs, () => res.destroy(new AiServerError('timeout', 'The AI server stopped answering. Try again.')));
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    res.resume();
    throw errorForStatus(status, String(res.headers['retry-after'] ?? '') || undefined);
  }
  const type = String(res.headers['content-type'] ?? '');
  try {
    if (!type.includes('text/event-stream')) {
      // A server that ignores `stream: true` answers one JSON completion.
      let raw = '';
      for await (const chunk of res) {
        raw += chunk;
        if (raw.length > 1_000_000) throw new AiServerError('bad_response', 'The AI server answered too much.');
      }
      yield* fromCompletion(parseJson(raw));
      return;
    }
    let buffer = '';
    for await (const chunk of res) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (!line.startsWith('data:')) continue; // comments (": keep-alive"), event names, blank separators
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        const json = parseJson(data) as {
          choices?: { delta?: { content?: string | null } }[];
          usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
          error?: unknown;
        };
        if (json.error) throw new AiServerError('server', 'The AI server reported an error while answering. Try again.');
        const delta = json.choices?.[0]?.delta?.content;
        if (delta) yield { delta };
        if (json.usage) yield { usage: { promptTokens: json.usage.prompt_tokens ?? 0, completionTokens: json.usage.completion_tokens ?? 0 } };
      }
    }
    throw new AiServerError('bad_response', 'The AI server ended its answer early. Try again.');
  } catch (err) {
    throw toAiError(err);
  }
}

function* fromCompletion(json: unknown): Generator<ChatChunk> {
  const j = json as { choices?: { message?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };
  const text = j.choices?.[0]?.message?.content;
  if (typeof text !== 'string') throw new AiServerError('bad_response', 'The AI server answered in an unknown format.');
  yield { delta: text };
  if (j.usage) yield { usage: { promptTokens: j.usage.prompt_tokens ?? 0, completionTokens: j.usage.completion_tokens ?? 0 } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AiServerError('bad_response', 'The AI server answered in an unknown format.');
  }
}

function refusedError(err: unknown) {
  if (err instanceof OutboundRefusedError) {
    return new AiServerError('refused', 'The AI server was refused: its address is not a public internet address (a self-hosted installation allows it with PARLEY_ALLOW_PRIVATE_DESTINATIONS).');
  }
  return toAiError(err);
}

function toAiError(err: unknown): AiServerError {
  if (err instanceof AiServerError) return err;
  if (err instanceof OutboundRefusedError || (err as { cause?: unknown })?.cause instanceof OutboundRefusedError) return refusedError(new OutboundRefusedError(''));
  if ((err as { name?: string })?.name === 'AbortError') return new AiServerError('timeout', 'The AI request was cancelled.');
  return new AiServerError('network', 'The AI server could not be reached. Try again, or ask an administrator to check its address.');
}
