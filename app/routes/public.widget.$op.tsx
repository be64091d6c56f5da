import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { isHostAllowed, offlineTicketSchema, readMessengerSettings } from '~/models/channels/messenger-settings';
import {
  getPublicWebInbox,
  isInboxOnline,
  lastVisitorMessageId,
  listVisitorMessages,
  postVisitorMessage,
  publicWidgetConfig,
  publishVisitorTyping,
  recordWidgetPageView,
  searchWidgetHelp,
  startVisitor,
  widgetHelpCentre,
  submitOfflineTicket,
  visitorFromToken,
  WIDGET_POST_LIMIT,
  WidgetInputError,
} from '~/models/channels/widget.server';
import { PUSH_NOT_IN_PLAN_MESSAGE, PushInputError, pushAllowed, refreshPushFacts, subscribePush, vapidKeysFor } from '~/models/campaigns/push.server';
import { countryOfRequest } from '~/utils/geoip.server';
import { trackVisitorEvent, TrackInputError } from '~/models/conversions/conversions.server';
import { TrackInput } from '~/models/conversions/schemas';
import { campaignReplyOpener, chatCampaignFor, recordChatCampaignShown } from '~/models/campaigns/chat.server';
import { botTurn, inboxHasBot } from '~/models/chatbots/runner.server';
import { helpUrl } from '~/models/knowledge-base/help-host.server';
import { createCaptcha, verifyCaptcha } from '~/models/productivity/captcha.server';
import { anyInAppSurveyLive, inAppSurveyFor } from '~/models/surveys/in-app.server';
import { readContactFormPost } from '~/models/productivity/uploads.server';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { MAX_ROW_ID, parseRowId } from '~/utils/route-id';
import { AccountSuspendedError, assertAccountTakingWork, SUSPENDED_RETRY_AFTER_SECONDS } from '~/models/accounts/suspension.server';
import { planAllows, requirePlanFeature } from '~/models/plans/enforce.server';

/**
 * The widget's HTTP API, called from customers' sites: CORS for any origin, no cookies, the visitor token in the
 * Authorization header. /public/ skips the CSRF check (there is no ambient credential to abuse).
 *   POST session · GET messages?after= · GET help?q= · GET survey?url= · POST messages · POST typing · POST pageview · POST ticket
 *   POST campaign (a message campaign was shown, ADR 082) · GET push (the VAPID key) · POST push (a subscription, ADR 083)
 *   POST track (Parley.track(name, props): a sale and the goals naming the event, ADR 105)
 */

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'authorization, content-type',
  'Access-Control-Max-Age': '600',
  'Cache-Control': 'no-store',
};

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { ...CORS, 'Content-Type': 'application/json; charset=utf-8' } });
}

/** Every refusal is JSON with the CORS headers, so the widget can read the message. */
async function answer(run: () => Promise<Response>) {
  try {
    return await run();
  } catch (err) {
    if (err instanceof WidgetInputError) return json({ error: err.message }, 400);
    // A suspended account (ADR 152): 503, and the widget keeps what the visitor typed.
    if (err instanceof AccountSuspendedError) return new Response(JSON.stringify({ error: err.message }), { status: 503, headers: { ...CORS, 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(SUSPENDED_RETRY_AFTER_SECONDS) } });
    if (err instanceof Response) return json({ error: (await err.text()) || err.statusText }, err.status);
    throw err;
  }
}

async function requireVisitor(request: Request) {
  const token = request.headers.get('authorization')?.replace(/^Bearer\s+/i, '') ?? null;
  const found = await visitorFromToken(token);
  if (!found) throw new Response('Your chat session has expired. Reload the page to start again', { status: 401 });
  await assertAccountTakingWork(found.inbox.accountId);
  // A plan without the messenger stops the chat already open too (ADR 157); its conversations stay in the inbox.
  await requirePlanFeature({ accountId: found.inbox.accountId, key: 'chatMessenger/enabled' });
  // Allowed sites hold for every request, not only the first: a token carried to another site stops working there.
  if (!isHostAllowed(readMessengerSettings(found.inbox.settings).advanced, request.headers.get('origin')))
    throw new Response('This site may not use this chat', { status: 403 });
  return found;
}

async function readJson(request: Request) {
  const length = Number(request.headers.get('content-length'));
  if (Number.isFinite(length) && length > 16 * 1024) throw new Response('Too large', { status: 413 });
  const text = await request.text();
  if (text.length > 16 * 1024) throw new Response('Too large', { status: 413 });
  try {
    return JSON.parse(text || '{}') as unknown;
  } catch {
    throw new WidgetInputError('The request is not valid JSON');
  }
}

const SessionInput = z.object({
  inboxId: z.coerce.number().int().positive().max(MAX_ROW_ID),
  token: z.string().max(300).nullish(),
  user: z
    .object({ id: z.coerce.string().max(200), hash: z.string().max(200).nullish(), name: z.string().max(200).nullish(), email: z.string().max(200).nullish() })
    .nullish(),
  /** The page the widget runs on and the survey its snippet names (data-survey): decide whether an in-app survey shows (ADR 061). */
  url: z.string().max(2000).nullish(),
  survey: z.string().max(32).nullish(),
  /** Sent only by a browser that subscribed to web push: the visit's referrer and time zone (ADR 115). */
  push: z.object({ r: z.string().max(2000).nullish(), z: z.string().max(100).nullish() }).nullish(),
});
const PageViewInput = z.object({ url: z.string().max(2000), title: z.string().max(500).nullish(), referrer: z.string().max(2000).nullish() });
const TypingInput = z.object({ typing: z.boolean() });
const PushInput = z.object({
  endpoint: z.string().max(2000),
  keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(100) }),
  url: z.string().max(2000).nullish(),
  referrer: z.string().max(2000).nullish(),
  timezone: z.string().max(100).nullish(),
});
const CampaignShownInput = z.object({ id: z.coerce.number().int().positive().max(MAX_ROW_ID) });

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new WidgetInputError('The request is not valid');
  return result.data;
}

/** A captcha of the offline form, bound to the inbox (negative ids keep it apart from contact forms' captchas). */
const captchaId = (inboxId: number) => -inboxId;

export async function loader({ request, params }: LoaderFunctionArgs) {
  // Preflights reach the loader (Remix hands OPTIONS to loaders); the actual POST reaches the action.
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
  return answer(async () => {
    if (params.op === 'help') return help(request);
    if (params.op === 'survey') return surveyForPage(request);
    if (params.op === 'push') {
      const { inbox } = await requireVisitor(request);
      if (!(await pushAllowed(inbox.accountId))) return json({ error: PUSH_NOT_IN_PLAN_MESSAGE }, 403);
      return json({ publicKey: (await vapidKeysFor({ accountId: inbox.accountId })).publicKey });
    }
    if (params.op !== 'messages') throw new Response('Not Found', { status: 404 });
    const { visitor } = await requireVisitor(request);
    const after = parseRowId(new URL(request.url).searchParams.get('after'));
    return json({ messages: await listVisitorMessages({ visitor, after: after ?? undefined }) });
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
  if (request.method !== 'POST') return json({ error: 'Method not allowed' }, 405);
  return answer(async () => {
    switch (params.op) {
      case 'session':
        return session(request);
      case 'messages':
        return messages(request);
      case 'typing': {
        const { visitor } = await requireVisitor(request);
        const { typing } = parse(TypingInput, await readJson(request));
        await enforceRateLimit(`widget-typing:${visitor.id}`, { limit: 60, windowMs: 60_000 });
        await publishVisitorTyping({ visitor, typing });
        return json({ ok: true });
      }
      case 'pageview': {
        const { visitor } = await requireVisitor(request);
        const input = parse(PageViewInput, await readJson(request));
        await enforceRateLimit(`widget-pageview:${visitor.id}`, { limit: 60, windowMs: 60_000 });
        await recordWidgetPageView({ visitor, ...input, userAgent: request.headers.get('user-agent') });
        return json({ ok: true });
      }
      case 'ticket':
        return ticket(request);
      case 'push': {
        const { visitor } = await requireVisitor(request);
        const input = parse(PushInput, await readJson(request));
        await enforceRateLimit(`widget-push:${visitor.id}`, { limit: 10, windowMs: 60_000 });
        if (!(await pushAllowed(visitor.accountId))) return json({ error: PUSH_NOT_IN_PLAN_MESSAGE }, 403);
        try {
          await subscribePush({ visitor, input, userAgent: request.headers.get('user-agent'), country: await countryOfRequest(request) });
        } catch (err) {
          if (err instanceof PushInputError) throw new WidgetInputError(err.message);
          throw err;
        }
        return json({ ok: true }, 201);
      }
      case 'campaign': {
        const { visitor } = await requireVisitor(request);
        const { id } = parse(CampaignShownInput, await readJson(request));
        await enforceRateLimit(`widget-campaign:${visitor.id}`, { limit: 30, windowMs: 60_000 });
        if (!(await recordChatCampaignShown({ visitor, campaignId: id }))) throw new Response('This message is not available', { status: 404 });
        return json({ ok: true });
      }
      case 'track': {
        const { visitor } = await requireVisitor(request);
        const input = parse(TrackInput, await readJson(request));
        await enforceRateLimit(`widget-track:${visitor.id}`, { limit: 30, windowMs: 60_000 });
        try {
          const { sale, goals } = await trackVisitorEvent({ accountId: visitor.accountId, contactId: visitor.contactId, name: input.name, props: input.props });
          return json({ ok: true, sale: sale ? { recorded: sale.created } : null, goals: goals.length });
        } catch (err) {
          if (err instanceof TrackInputError) throw new WidgetInputError(err.message);
          throw err;
        }
      }
      default:
        throw new Response('Not Found', { status: 404 });
    }
  });
}

async function session(request: Request) {
  await enforceRateLimit(`widget-session:${clientIp(request)}`, { limit: 60, windowMs: 60_000 });
  const input = parse(SessionInput, await readJson(request));
  const inbox = await getPublicWebInbox(input.inboxId);
  if (!inbox) throw new Response('This chat is not available', { status: 404 });
  await assertAccountTakingWork(inbox.accountId);
  await requirePlanFeature({ accountId: inbox.accountId, key: 'chatMessenger/enabled' });
  // Checked before any visitor is made: a site that may not use the chat leaves nothing behind.
  if (!isHostAllowed(readMessengerSettings(inbox.settings).advanced, request.headers.get('origin')))
    throw new Response('This site may not use this chat', { status: 403 });
  const { visitor, token, settings } = await startVisitor({ inbox, token: input.token, user: input.user });
  // A subscribed browser's later visit refreshes its push segment facts (ADR 115); other visitors send no `push`.
  if (input.push && input.url)
    await refreshPushFacts({ visitor, url: input.url, referrer: input.push.r, timezone: input.push.z, userAgent: request.headers.get('user-agent'), country: await countryOfRequest(request) });
  // A message campaign for this visitor on this page (ADR 082), only before a chat has started; read alongside the rest.
  const campaign = input.url && !visitor.conversationId ? chatCampaignFor({ visitor, url: input.url }) : null;
  // Its failure is raised where it is awaited below; this only keeps it from counting as unhandled meanwhile.
  campaign?.catch(() => {});
  const online = await isInboxOnline({ accountId: inbox.accountId, inbox });
  const captcha = !online && settings.offline.isCaptcha ? await createCaptcha({ formId: captchaId(inbox.id) }) : null;
  // In-app surveys are the Surveys area's (ADR 157): without it none is offered, so none is answered in vain.
  const surveysAllowed = await planAllows({ accountId: inbox.accountId, key: 'customerSatisfactionSurveys/enabled' });
  const survey = input.url && surveysAllowed ? await inAppSurveyFor({ visitor, url: input.url, uniqueId: input.survey }) : null;
  return json({
    token,
    online,
    config: { ...publicWidgetConfig(inbox, settings), help: Boolean(await widgetHelpCentre(inbox, settings)) },
    conversationId: visitor.conversationId,
    messages: await listVisitorMessages({ visitor }),
    captcha: captcha ? { question: captcha.question, token: captcha.token } : null,
    // A chatbot answers in this inbox: the chat shows even while the team is away (ADR 075).
    bot: await inboxHasBot({ accountId: inbox.accountId, inboxId: inbox.id }),
    // Only when a published in-app survey targets this page for this visitor: the widget then fetches the survey module.
    survey,
    // None here, but some elsewhere: the widget asks again (GET survey?url=) when a single-page site navigates.
    surveysLive: survey ? true : surveysAllowed && (await anyInAppSurveyLive({ accountId: inbox.accountId, uniqueId: input.survey })),
    campaign: await campaign,
  });
}

/** GET survey?url=&key=: the in-app survey for a page a single-page site moved to without a load (ADR 061). */
async function surveyForPage(request: Request) {
  const { visitor, inbox } = await requireVisitor(request);
  await enforceRateLimit(`widget-survey:${visitor.id}`, { limit: 60, windowMs: 60_000 });
  if (!(await planAllows({ accountId: inbox.accountId, key: 'customerSatisfactionSurveys/enabled' }))) return json({ survey: null });
  const params = new URL(request.url).searchParams;
  const url = params.get('url') ?? '';
  const key = params.get('key');
  if (!url || url.length > 2000 || (key && key.length > 32)) throw new WidgetInputError('The request is not valid');
  return json({ survey: await inAppSurveyFor({ visitor, url, uniqueId: key }) });
}

/** GET help?q=: the help-centre search shown before a chat starts. */
async function help(request: Request) {
  const { visitor, inbox } = await requireVisitor(request);
  await enforceRateLimit(`widget-help:${visitor.id}`, { limit: 60, windowMs: 60_000 });
  const params = new URL(request.url).searchParams;
  const q = params.get('q') ?? '';
  if (q.length > 200) throw new WidgetInputError('The search is too long');
  // The search this one replaces, if any (none: absent, empty or 0).
  const replacesParam = (params.get('replaces') ?? '').trim();
  const replaces = replacesParam === '' || replacesParam === '0' ? null : parseRowId(replacesParam);
  if (replaces === null && replacesParam !== '' && replacesParam !== '0') throw new WidgetInputError('The request is not valid');
  const found = await searchWidgetHelp({ inbox, q, replaces, visitorId: visitor.id });
  if (!found) throw new Response('This chat has no help centre to search', { status: 404 });
  return json({ searchId: found.searchId, results: found.results.map((r) => ({ title: r.title, text: r.text, url: helpUrl(request, found.domain, r.path) })) });
}

async function messages(request: Request) {
  const { visitor, inbox } = await requireVisitor(request);
  await enforceRateLimit(`widget-post:${visitor.id}`, WIDGET_POST_LIMIT);
  const { fields, files, fileErrors } = await readContactFormPost(request, { acceptFiles: true });
  if (fileErrors.length) throw new WidgetInputError(fileErrors[0]);
  const text = fields.get('text');
  const file = files[0];
  if (file && !readMessengerSettings(inbox.settings).advanced.attachments) throw new WidgetInputError('Attachments are not accepted in this chat');
  const before = await lastVisitorMessageId(visitor);
  // The first message after a message campaign showed answers it: the conversation opens with the campaign (ADR 082).
  const campaignId = Number(fields.get('campaign'));
  const campaign =
    !visitor.conversationId && Number.isSafeInteger(campaignId) && campaignId > 0 && campaignId <= MAX_ROW_ID ? await campaignReplyOpener({ visitor, campaignId }) : null;
  const { conversationId } = await postVisitorMessage({
    visitor,
    clientId: fields.get('clientId'),
    text: typeof text === 'string' ? text : '',
    file: file ? { filename: file.filename, contentType: file.contentType, bytes: file.bytes } : null,
    campaign,
  });
  await botTurn(request, { visitor, conversationId, text: typeof text === 'string' ? text : '' });
  return json({ conversationId, messages: await listVisitorMessages({ visitor: { ...visitor, conversationId }, after: before }) });
}

async function ticket(request: Request) {
  const { visitor, inbox } = await requireVisitor(request);
  await requirePlanFeature({ accountId: inbox.accountId, key: 'chatMessenger/offlineExperience' });
  await enforceRateLimit(`widget-ticket:${clientIp(request)}`, { limit: 10, windowMs: 10 * 60_000 });
  const offline = readMessengerSettings(inbox.settings).offline;
  const { fields, files, fileErrors } = await readContactFormPost(request, { acceptFiles: offline.isAttachment });
  const submission = parseWithZod(fields, { schema: offlineTicketSchema(offline) });
  const fieldErrors: Record<string, string[]> = {};
  if (submission.status !== 'success') Object.assign(fieldErrors, submission.reply().error ?? {});
  if (fileErrors.length) fieldErrors.attachments = fileErrors;
  if (offline.isCaptcha) {
    const answerText = fields.get('captchaAnswer');
    const tokenText = fields.get('captchaToken');
    const result = await verifyCaptcha({
      formId: captchaId(inbox.id),
      answer: typeof answerText === 'string' ? answerText : null,
      token: typeof tokenText === 'string' ? tokenText : null,
      spend: Object.keys(fieldErrors).length === 0,
    });
    if (!result.ok) fieldErrors.captchaAnswer = [result.message];
  }
  if (submission.status !== 'success' || Object.keys(fieldErrors).length) {
    return json({ error: 'Please check the form', fieldErrors }, 400);
  }
  const file = files[0];
  await submitOfflineTicket({
    visitor,
    values: submission.value,
    file: file ? { filename: file.filename, contentType: file.contentType, bytes: file.bytes } : null,
  });
  return json({ ok: true, message: offline.submitMessage });
}
