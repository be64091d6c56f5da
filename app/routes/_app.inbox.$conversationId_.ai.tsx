import type { ActionFunctionArgs } from '@remix-run/node';
import { AiServerError } from '~/models/ai/client.server';
import { AiHelpSchema } from '~/models/ai/forms';
import { AiCapReachedError, AiInputError, planAiHelp, runAiHelp } from '~/models/ai/help.server';
import { statusOfAiError } from '~/models/ai/page.server';
import { parseWithZod } from '~/utils/conform.server';
import { parseRouteId } from '~/utils/route-id';
import { requirePermission } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';

/**
 * The reply box's AI buttons with JavaScript (ADR 081): the same form, answered as a stream of plain text that the
 * page writes into the reply box as it arrives. Failures before the first word are a status with a sentence; a
 * failure mid-answer ends the stream with a bracketed sentence. Without JavaScript the page's own action answers.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_conversation');
  const id = parseRouteId(params.conversationId);
  if (id === null) throw text('Conversation not found', 404);
  const submission = parseWithZod(await request.formData(), { schema: AiHelpSchema });
  if (submission.status !== 'success') {
    const errors = Object.values(submission.error ?? {}).flat();
    return text(errors[0] ?? 'The request could not be read', 400);
  }
  let plan;
  try {
    plan = await planAiHelp({ accountId: ctx.account.id, conversationId: id, input: submission.value, siteUrl: accountUrl(request, ctx.account.domain, '') });
  } catch (err) {
    if (err instanceof AiInputError) return text(err.message, 400);
    throw err;
  }
  if (!plan) return text('Conversation not found', 404);
  if (plan.kind === 'suggestions') return text('No AI server is set up for this account: the page shows suggestions instead.', 409);
  const controller = new AbortController();
  request.signal.addEventListener('abort', () => controller.abort());
  const answer = runAiHelp({ accountId: ctx.account.id, userId: ctx.user.id, conversationId: id, plan, signal: controller.signal });
  let first: IteratorResult<string>;
  try {
    first = await answer.next();
  } catch (err) {
    if (err instanceof AiServerError || err instanceof AiCapReachedError) return text(err.message, statusOfAiError(err));
    throw err;
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      if (!first.done) c.enqueue(encoder.encode(first.value));
      if (first.done) c.close();
    },
    async pull(c) {
      try {
        const next = await answer.next();
        if (next.done) c.close();
        else c.enqueue(encoder.encode(next.value));
      } catch (err) {
        c.enqueue(encoder.encode(`\n\n[The AI answer stopped: ${err instanceof AiServerError ? err.message : 'the AI server failed.'}]`));
        c.close();
      }
    },
    cancel() {
      controller.abort();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store, no-transform', 'x-content-type-options': 'nosniff' } });
}

function text(message: string, status: number) {
  return new Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
}
