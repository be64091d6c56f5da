import { z } from 'zod';
import { getLogger } from '../../utils/logger.server';
import { applyDeliveryReport, ingestChannelMessage, openWebhook, parseWebhookJson, plainResponse } from './inbound.server';
import { PARLEY_SIGNATURE_HEADER, verifyParleySignature } from './signatures';
import { readSmsSettings } from './sms.server';

/** What a custom gateway posts (docs/custom-sms.md). */
const CustomSmsInboundSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message'),
    id: z.string().trim().min(1).max(200),
    from: z
      .string()
      .trim()
      .regex(/^\+?\d{3,15}$/),
    to: z.string().trim().max(32).optional(),
    text: z.string().max(10_000),
    name: z.string().trim().max(100).optional(),
    receivedAt: z.iso.datetime({ offset: true }).optional(),
  }),
  z.object({
    type: z.literal('status'),
    id: z.string().trim().min(1).max(200),
    status: z.enum(['sent', 'delivered', 'failed']),
    error: z.string().max(500).optional(),
  }),
]);

export async function handleCustomSmsWebhook(request: Request, param: string | undefined) {
  const opened = await openWebhook(request, param, 'sms', (inbox) => readSmsSettings(inbox).provider === 'custom_sms' && !!inbox.secret);
  if ('response' in opened) return opened.response;
  const { inbox, raw } = opened;
  const check = verifyParleySignature({ secret: inbox.secret ?? '', rawBody: raw, header: request.headers.get(PARLEY_SIGNATURE_HEADER) });
  if (!check.ok) {
    getLogger().warn({ inboxId: inbox.id, reason: check.reason }, 'custom sms webhook: bad signature');
    return plainResponse(401, `Invalid signature (${check.reason})`);
  }
  const parsedJson = parseWebhookJson(raw);
  if ('response' in parsedJson) return parsedJson.response;
  const json = parsedJson.json;
  const parsed = CustomSmsInboundSchema.safeParse(json);
  if (!parsed.success) return plainResponse(400, `Invalid payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'} ${i.message}`).join('; ')}`);
  const body = parsed.data;
  if (body.type === 'status') {
    const found = await applyDeliveryReport({ inbox, externalId: body.id, status: body.status, error: body.error });
    return found ? Response.json({ ok: true }) : plainResponse(404, 'No such message');
  }
  const result = await ingestChannelMessage({
    inbox,
    sourceType: 'custom_sms',
    sender: { phone: body.from, name: body.name },
    text: body.text,
    externalId: body.id,
    // A gateway's clock ahead of ours must not date a message in the future.
    receivedAt: body.receivedAt ? new Date(Math.min(Date.parse(body.receivedAt), Date.now())) : undefined,
  });
  return Response.json({ ok: true, status: result.status, conversationId: result.conversationId }, { status: result.status === 'duplicate' ? 200 : 201 });
}
