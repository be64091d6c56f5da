import { getLogger } from '../../utils/logger.server';
import { applyDeliveryReport, ingestChannelMessage, openWebhook, plainResponse } from './inbound.server';
import { verifyTwilioSignature } from './signatures';
import { readSmsSettings } from './sms.server';
import type { Inbox } from '../inbox/inboxes.server';
import { deliveryStatusOfTwilio } from './twilio.server';

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

type Verified = { inbox: Inbox; params: URLSearchParams } | { response: Response };

/**
 * The URLs Twilio may have signed: the request's own (as the proxy forwarded it) and the one Parley gave Twilio
 * (publicBase + path), since a TLS-terminating proxy turns https into http on the way in (ADR 020).
 */
function candidateUrls(request: Request, inbox: Inbox) {
  const url = new URL(request.url);
  const { publicBase } = readSmsSettings(inbox);
  const seen = `${url.origin}${url.pathname}${url.search}`;
  const given = publicBase ? `${publicBase}${url.pathname}${url.search}` : null;
  const httpsOfSeen = url.protocol === 'http:' ? `https://${url.host}${url.pathname}${url.search}` : null;
  return [...new Set([seen, given, httpsOfSeen].filter((u): u is string => Boolean(u)))];
}

async function verifiedTwilioRequest(request: Request, param: string | undefined): Promise<Verified> {
  const opened = await openWebhook(request, param, 'sms', (inbox) => readSmsSettings(inbox).provider === 'twilio');
  if ('response' in opened) return opened;
  const { inbox, raw } = opened;
  const params = new URLSearchParams(raw);
  const settings = readSmsSettings(inbox);
  const ok = verifyTwilioSignature({
    // Twilio signs with the account's Auth Token: with an API key that is the one given for webhooks.
    authToken: settings.webhookAuthToken || settings.authToken || '',
    urls: candidateUrls(request, inbox),
    params: [...params.entries()],
    header: request.headers.get('x-twilio-signature'),
  });
  if (!ok) {
    getLogger().warn({ inboxId: inbox.id }, 'twilio webhook: bad signature');
    return { response: plainResponse(403, 'Forbidden') };
  }
  // Another Twilio account's (signed) request is not for this inbox.
  const accountSid = params.get('AccountSid');
  if (accountSid && settings.accountSID && accountSid !== settings.accountSID) return { response: plainResponse(403, 'Forbidden') };
  return { inbox, params };
}

export async function handleTwilioInbound(request: Request, param: string | undefined) {
  const checked = await verifiedTwilioRequest(request, param);
  if ('response' in checked) return checked.response;
  const { inbox, params } = checked;
  const from = (params.get('From') ?? '').trim();
  const sid = (params.get('MessageSid') ?? params.get('SmsSid') ?? '').trim();
  if (!/^\+?\d{3,15}$/.test(from) || !sid) return plainResponse(400, 'From and MessageSid are required');
  let text = params.get('Body') ?? '';
  const media = Number(params.get('NumMedia') ?? '0');
  if (media > 0) {
    const links = Array.from({ length: Math.min(media, 10) }, (_, i) => params.get(`MediaUrl${i}`)).filter(Boolean);
    text = [text, ...links.map((l) => `[media] ${l}`)].filter(Boolean).join('\n');
  }
  await ingestChannelMessage({ inbox, sourceType: 'twilio', sender: { phone: from }, text, externalId: sid });
  return new Response(EMPTY_TWIML, { status: 200, headers: { 'content-type': 'text/xml; charset=utf-8' } });
}

export async function handleTwilioStatus(request: Request, param: string | undefined) {
  const checked = await verifiedTwilioRequest(request, param);
  if ('response' in checked) return checked.response;
  const { inbox, params } = checked;
  const sid = params.get('MessageSid') ?? params.get('SmsSid');
  const status = deliveryStatusOfTwilio(params.get('MessageStatus') ?? params.get('SmsStatus') ?? '');
  if (!sid) return plainResponse(400, 'MessageSid is required');
  if (status) {
    const code = params.get('ErrorCode');
    await applyDeliveryReport({
      inbox,
      externalId: sid,
      status,
      error: status === 'failed' ? `Twilio: ${params.get('MessageStatus')}${code ? ` (error ${code})` : ''}` : undefined,
    });
  }
  return plainResponse(200, '');
}
