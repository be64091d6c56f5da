import crypto from 'node:crypto';
import http from 'node:http';
import nodemailer from 'nodemailer';
import WebSocket from 'ws';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { PlanFeatures } from '../../db/schema/accounts';
import { createApiKey } from '../../app/models/api/keys.server';
import { saveMessengerSection, createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { createSmsInbox } from '../../app/models/channels/sms.server';
import { createForm, setFormStatus } from '../../app/models/forms/forms.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { AREA_PREFIX_LIST, areaFeatureOf } from '../../app/models/plans/areas';
import { FEATURE_AREAS, FEATURE_DENIED_MESSAGE, type FeatureKey } from '../../app/models/plans/catalogue';
import { createContactForm } from '../../app/models/productivity/contact-forms.server';
import { createSource } from '../../app/models/reviews/reviews.server';
import { createTestAccount, givePlan } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';
import { listRuleRuns } from '../../app/models/automation/run-history.server';
import { PLAN_SKIPPED_REASON } from '../../app/models/automation/runner.server';
import { runCampaignSend, PLAN_STOPPED_REASON } from '../../app/models/campaigns/sending.server';
import { forwardingAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { saveConnection } from '../../app/models/integrations/connections.server';
import { PLAN_IGNORED } from '../../app/models/integrations/plan.server';
import { PlanFeatureDeniedError } from '../../app/models/plans/enforce.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { PLAN_CLOSE_CODE, startWidgetSocket } from '../../server/widget-ws';
import { sessionCookie, startTestApp } from '../helpers/http';
import { publishedSurvey } from '../helpers/surveys';

/**
 * Plan features on every surface (ADR 157), through the real Express app and database. One account holds one of
 * each public surface (widget, offline form, in-app survey answers, chat page, SMS webhook, help centre, REST API,
 * web and email surveys, CSAT rating page, form, review page, testimonials, contact form); its plan loses one flag at
 * a time. Each surface whose flag (or whose flag's area) is off answers 403 with the specification's message, and
 * every other surface still works. Each agent area prefix of app/models/plans/areas.ts is walked too: with its area
 * off a page load falls back (to Home, or to Settings) and shows the message as a toast, a data request and a post get
 * the 403; with its area on the page opens.
 */

let app: Awaited<ReturnType<typeof startTestApp>>;
const appHost = process.env.APP_HOST ?? 'localhost:3000';
const HTML = 'text/html,application/xhtml+xml';

type Res = { status: number; headers: http.IncomingHttpHeaders; text: string };

/** A raw request (JSON, multipart, a bearer token) on the test app's port. */
function raw(pathname: string, opts: { method?: string; host: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: pathname, method: opts.method ?? 'GET', headers: { host: opts.host, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

function multipart(fields: Record<string, string>) {
  const boundary = '----parleyplan' + Math.random().toString(16).slice(2);
  const body = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  return { body: `${body}--${boundary}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function allFeatures(): PlanFeatures {
  const features: PlanFeatures = {};
  for (const [area, flags] of Object.entries(FEATURE_AREAS)) features[area] = Object.fromEntries(flags.map((f) => [f, true]));
  features.workflowAutomation.advanceWorkflowsLimit = 50;
  return features;
}

function without(key: FeatureKey | null): PlanFeatures {
  const features = allFeatures();
  if (key) {
    const [area, flag] = key.split('/');
    delete features[area][flag];
  }
  return features;
}

type Surface = {
  name: string;
  /** The flags it needs: refused when any is off (a flag's area counts, ADR 157). */
  needs: FeatureKey[];
  call: () => Promise<Res>;
  /** What a working surface answers. */
  works: (res: Res) => void;
  /** How it carries the refusal: JSON for the widget, plain text for machines, the error page for pages. */
  refusal: 'json' | 'text' | 'page' | 'api';
};

let surfaces: Surface[] = [];
let s: Awaited<ReturnType<typeof createTestAccount>> & { cookie: string; host: string };
let kbId = 0;

beforeAll(async () => {
  app = await startTestApp();
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const host = `${a.domain}.${appHost}`;
  s = { ...a, host, cookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }) };

  const web = await createWebInbox({ ...who, name: 'Website' });
  await saveMessengerSection({ ...who, inboxId: web.id, section: 'chatPage', value: { enabled: true, heading: 'Talk to us', subHeading: '' } });
  const [webRow] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, web.id));
  const chatCode = (webRow.settings as { chatPage: { code: string } }).chatPage.code;
  // A visitor token, taken while the plan has everything (a chat already open when the plan changes).
  const opened = await raw('/public/widget/session', { method: 'POST', host: appHost, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inboxId: web.id }) });
  expect(opened.status).toBe(200);
  const token = (JSON.parse(opened.text) as { token: string }).token;

  const sms = await createSmsInbox({
    ...who,
    publicBase: `http://${appHost}`,
    input: { provider: 'twilio', name: 'Texts', phoneNumber: '+15005550006', accountSID: `AC${'1'.repeat(32)}`, sid: `AC${'1'.repeat(32)}`, authToken: 'token-token', threadingInterval: 1, autoResolvedDays: 0, assigneeIds: [a.owner.id] } as never,
  });

  const kb = await createKnowledgeBase({ ...who, name: 'Help' });
  kbId = kb.id;
  await createArticle({ ...who, knowledgeBaseId: kb.id, title: 'Paying invoices', body: '<p>Open Billing.</p>', publish: true });
  const { token: apiToken } = await createApiKey({ ...who, name: 'Plan key', scopes: ['contacts:read'] });
  const { survey } = await publishedSurvey({ ...who });
  const form = await createForm({ ...who, name: 'Demo request' });
  const published = (await setFormStatus({ ...who, id: form.id, status: 'published' }))!;
  const review = await createSource({ ...who, input: { kind: 'parley', name: 'Our page', reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null } });
  const contactInbox = await createInbox({ ...who, name: 'Contact', channelType: 'contact_form' } as never);
  const contact = await createContactForm({
    ...who,
    headerText: 'Talk to Acme',
    subHeaderText: '',
    submitText: 'Send',
    submitMsg: 'Thanks',
    inboxId: contactInbox.id,
    allowPhone: false,
    allowAttachments: false,
    allowCaptcha: false,
  });

  const widgetHeaders = { authorization: `Bearer ${token}`, origin: 'http://customer.example' };
  const page = (path: string) => () => raw(path, { host, headers: { accept: HTML } });
  const ok200 = (res: Res) => expect(res.status, res.text.slice(0, 300)).toBe(200);
  // The guard stands before the link's own check: an unknown link is the 404 of a surface that works.
  const unknownLink = (res: Res) => expect(res.status).toBe(404);

  surfaces = [
    {
      name: 'widget session',
      needs: ['chatMessenger/enabled'],
      refusal: 'json',
      call: () => raw('/public/widget/session', { method: 'POST', host: appHost, headers: { 'content-type': 'application/json', origin: 'http://customer.example' }, body: JSON.stringify({ inboxId: web.id }) }),
      works: ok200,
    },
    { name: 'widget messages (an open chat)', needs: ['chatMessenger/enabled'], refusal: 'json', call: () => raw('/public/widget/messages?after=0', { host: appHost, headers: widgetHeaders }), works: ok200 },
    {
      name: 'widget offline ticket',
      needs: ['chatMessenger/enabled', 'chatMessenger/offlineExperience'],
      refusal: 'json',
      call: () => {
        const m = multipart({ name: 'Ada Lovelace', email: 'ada@example.test', subject: 'Refund', message: 'Please call me' });
        return raw('/public/widget/ticket', { method: 'POST', host: appHost, headers: { ...widgetHeaders, ...m.headers }, body: m.body });
      },
      works: ok200,
    },
    {
      name: 'widget in-app survey answer',
      needs: ['chatMessenger/enabled', 'customerSatisfactionSurveys/enabled'],
      refusal: 'json',
      // Past the plan, a malformed answer is a 400: the route is open.
      call: () => raw('/public/widget/survey/answer', { method: 'POST', host: appHost, headers: { ...widgetHeaders, 'content-type': 'application/json' }, body: '{}' }),
      works: (res) => expect(res.status).toBe(400),
    },
    { name: 'chat page', needs: ['channels/chatPages'], refusal: 'page', call: page(`/public/chat/${chatCode}`), works: ok200 },
    {
      name: 'SMS webhook (Twilio)',
      needs: ['channels/sms'],
      refusal: 'text',
      call: () => raw(`/webhooks/twilio/${sms.id}`, { method: 'POST', host: appHost, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'From=%2B14155550160&To=%2B15005550006&Body=Hi' }),
      // Past the plan, an unsigned request is refused by the signature check, not by the plan.
      works: (res) => expect(res.text).not.toContain(FEATURE_DENIED_MESSAGE),
    },
    { name: 'help centre home', needs: ['knowledgeBase/enabled'], refusal: 'page', call: page(`/hc/${kb.slug}`), works: ok200 },
    { name: 'help centre search', needs: ['knowledgeBase/enabled'], refusal: 'page', call: page(`/hc/${kb.slug}/search?q=invoice`), works: ok200 },
    { name: 'help centre sitemap', needs: ['knowledgeBase/enabled'], refusal: 'text', call: () => raw(`/hc/${kb.slug}/sitemap.xml`, { host }), works: ok200 },
    {
      name: 'REST API',
      needs: ['integrations/enabled'],
      refusal: 'api',
      call: () => raw('/api/v1/contacts', { host, headers: { authorization: `Bearer ${apiToken}` } }),
      works: ok200,
    },
    { name: 'web survey', needs: ['customerSatisfactionSurveys/enabled'], refusal: 'page', call: page(`/survey/web/${a.account.id}/${survey.uniqueId}`), works: ok200 },
    { name: 'email survey link', needs: ['customerSatisfactionSurveys/enabled'], refusal: 'page', call: page(`/survey/email/${a.account.id}/no-such-token`), works: unknownLink },
    { name: 'CSAT rating link', needs: ['customerSatisfactionSurveys/emailSurveys'], refusal: 'page', call: page(`/csat/${a.account.id}/no-such-token`), works: unknownLink },
    { name: 'public form', needs: ['customerManagement/enabled'], refusal: 'page', call: page(`/f/${published.code}`), works: ok200 },
    { name: 'review page', needs: ['customerSatisfactionSurveys/enabled'], refusal: 'page', call: page(`/r/${review.code}`), works: ok200 },
    { name: 'testimonials', needs: ['customerSatisfactionSurveys/enabled'], refusal: 'page', call: page('/testimonials'), works: ok200 },
    { name: 'contact form', needs: ['support/enabled'], refusal: 'page', call: page(`/contact/${contact.code}`), works: ok200 },
  ];
});
afterAll(async () => {
  await app?.close();
});

const areaOf = (key: FeatureKey) => `${key.split('/')[0]}/enabled` as FeatureKey;
const refusedBy = (surface: Surface, off: FeatureKey | null) => off !== null && surface.needs.some((k) => k === off || areaOf(k) === off);

function expectRefused(surface: Surface, res: Res) {
  expect(res.status, `${surface.name}: ${res.text.slice(0, 200)}`).toBe(403);
  if (surface.refusal === 'json') expect(JSON.parse(res.text)).toEqual({ error: FEATURE_DENIED_MESSAGE });
  else if (surface.refusal === 'text') expect(res.text).toBe(FEATURE_DENIED_MESSAGE);
  else if (surface.refusal === 'api') expect(JSON.parse(res.text)).toMatchObject({ error: { code: 'plan_feature', message: FEATURE_DENIED_MESSAGE } });
  else {
    expect(res.text).toContain('data-testid="feature-denied"');
    expect(res.text).toContain(FEATURE_DENIED_MESSAGE);
  }
}

/** The set-cookie pairs of a response added to a cookie header (the toast travels in a cookie). */
function withCookies(cookie: string, res: Res) {
  const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]);
  return [cookie, ...set].join('; ');
}

/** Known pages below the prefixes too: a fallback one level up that is in the same refused area goes on up. */
const AREA_PATHS = [...AREA_PREFIX_LIST, '/campaigns/sms', '/customers/companies', '/settings/teams/new', '/settings/sms/new'];

/** The flags turned off in turn: every area, and the finer flags a public surface names. */
const OFF: (FeatureKey | null)[] = [
  null,
  ...(Object.keys(FEATURE_AREAS) as (keyof typeof FEATURE_AREAS)[]).map((area) => `${area}/enabled` as FeatureKey),
  'channels/sms',
  'channels/chatPages',
  'chatMessenger/offlineExperience',
  'customerSatisfactionSurveys/emailSurveys',
];

describe('plan features on public surfaces and agent areas', () => {
  it.each(OFF.map((off) => [off ?? 'nothing', off] as const))('with %s off', async (_label, off) => {
    await givePlan(s.account.id, without(off));
    // The widget's per-address windows (sessions, offline tickets) are not what this test is about.
    await getDb().execute(sql`delete from rate_limits where key like 'widget-%'`);
    const problems: string[] = [];
    const check = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (err) {
        problems.push(`${what}: ${(err as Error).message.split('\n')[0]}`);
      }
    };

    for (const surface of surfaces) {
      const res = await surface.call();
      check(`${surface.name} (${refusedBy(surface, off) ? 'refused' : 'works'})`, () => (refusedBy(surface, off) ? expectRefused(surface, res) : surface.works(res)));
    }

    for (const path of AREA_PATHS) {
      const key = areaFeatureOf(path)!;
      // A finer flag of the same area is the screen's own business (channels/sms on /settings/sms...).
      if (off && off !== key && areaOf(off) === key) continue;
      const pageLoad = await app.request(path, { domain: s.domain, cookie: s.cookie, accept: HTML });
      if (off === key) {
        check(`${path} page load falls back`, () => {
          expect(pageLoad.status).toBe(302);
          expect(['/home', '/settings']).toContain(pageLoad.headers.location);
        });
        if (pageLoad.status === 302) {
          // Followed as a browser does (Settings opens on My Profile), the toast's cookie along.
          let cookie = withCookies(s.cookie, pageLoad);
          let landed = await app.request(String(pageLoad.headers.location), { domain: s.domain, cookie, accept: HTML });
          for (let hops = 0; landed.status === 302 && hops < 3; hops++) {
            cookie = withCookies(cookie, landed);
            landed = await app.request(String(landed.headers.location), { domain: s.domain, cookie, accept: HTML });
          }
          check(`${path} fallback shows the toast`, () => expect(landed.text).toContain(FEATURE_DENIED_MESSAGE));
        }
        const dataRequest = await app.request(path, { domain: s.domain, cookie: s.cookie });
        check(`${path} data request 403`, () => expect(dataRequest.status).toBe(403));
        const post = await app.request(path, { domain: s.domain, cookie: s.cookie, form: { intent: 'save', name: 'Gated' } });
        // A path without an action answers 405 before any code runs: nothing can change there either.
        check(`${path} post refused`, () => expect([403, 405]).toContain(post.status));
        if (post.status === 403) check(`${path} post says why`, () => expect(post.text).toContain(FEATURE_DENIED_MESSAGE));
      } else {
        check(`${path} opens`, () => {
          expect([200, 302]).toContain(pageLoad.status);
          // A landing that redirects stays in its area (/forms → /forms/all), never a refusal's fallback.
          if (pageLoad.status === 302) expect(String(pageLoad.headers.location)).toMatch(new RegExp(`^${path.split('/').slice(0, 2).join('/')}`));
        });
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('custom CSS and custom JavaScript are locked one by one: the locked one keeps what is stored, a change to it is refused', async () => {
    await givePlan(s.account.id, allFeatures());
    const path = `/knowledgebase/${kbId}/custom-css-js`;
    const post = (form: Record<string, string>) => app.request(path, { domain: s.domain, cookie: s.cookie, form });
    expect((await post({ customCss: 'body{color:red}', customJs: 'window.a=1' })).status).toBe(302);
    await givePlan(s.account.id, without('knowledgeBase/customJavascript'));
    const page = await app.request(path, { domain: s.domain, cookie: s.cookie, accept: HTML });
    expect(page.text).toContain(`Custom JavaScript: ${FEATURE_DENIED_MESSAGE}`);
    // As the page sends it: the locked textarea is disabled, so only the CSS travels.
    expect((await post({ customCss: 'body{color:blue}' })).status).toBe(302);
    const refused = await post({ customCss: 'body{color:blue}', customJs: 'window.b=2' });
    expect(refused.status).toBe(403);
    const [row] = await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.id, kbId));
    expect({ css: row.customCss, js: row.customJs }).toEqual({ css: 'body{color:blue}', js: 'window.a=1' });
  });
});

/**
 * The gaps ADR 157 left (its addendum): the engine (workflows and campaigns), the visitor socket, inbound email and
 * third-party integration webhooks. Each case runs once with the flag and once without it; without the guard, the
 * case without the flag would act as the one with it.
 */
describe('plan features in the engine and the non-HTTP channels', () => {
  it('workflows stop acting without workflowAutomation/enabled, each rule logged as skipped for the plan', async () => {
    const a = await createTestAccount();
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `wf-${a.account.id}@example.test` } as never);
    const tag = await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'seen', color: 'blue' });
    const [rule] = await getDb()
      .insert(schema.automationRules)
      .values({ accountId: a.account.id, kind: 'workflow', name: 'tag all', event: 'conversation_created', conditions: [], conditionOperator: 'and', filters: [], actions: [{ type: 'assign_tag', tagIds: [tag.id] }], sources: [], isActive: true })
      .returning();
    const open = async (subject: string) => {
      const after = await lastEventId(a.account.id);
      const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject, contact: { email: 'ada@example.test' }, message: { kind: 'incoming', text: 'Hello' } });
      await drainEvents(a.account.id, { after });
      const tags = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversation.id));
      return { conversation, tagged: tags.length > 0 };
    };
    await givePlan(a.account.id, allFeatures());
    expect((await open('With the plan')).tagged).toBe(true);

    await givePlan(a.account.id, without('workflowAutomation/enabled'));
    const locked = await open('Without the plan');
    expect(locked.tagged).toBe(false);
    const runs = await listRuleRuns({ accountId: a.account.id, ruleId: rule.id });
    const run = runs.runs.find((r) => r.conversationId === locked.conversation.id)!;
    expect(run.state).toBe('plan_skipped');
    expect(run.lines[0].detail).toMatchObject({ reason: PLAN_SKIPPED_REASON });
  });

  it('scheduled and sending campaigns stop without their plan flag: back to draft or paused, with the reason in their status event', async () => {
    const a = await createTestAccount();
    await givePlan(a.account.id, without('campaigns/emailCampaigns'));
    const past = new Date(Date.now() - 60_000);
    const [scheduled] = await getDb().insert(schema.campaigns).values({ accountId: a.account.id, kind: 'email', name: 'Scheduled', status: 'scheduled', scheduledAt: past }).returning();
    const [sending] = await getDb().insert(schema.campaigns).values({ accountId: a.account.id, kind: 'email', name: 'Sending', status: 'sending', scheduledAt: past, startedAt: past }).returning();
    for (const c of [scheduled, sending]) expect(await runCampaignSend({ accountId: a.account.id, campaignId: c.id })).toEqual({ sent: 0, done: true });
    const rows = await getDb().select().from(schema.campaigns).where(eq(schema.campaigns.accountId, a.account.id));
    expect(Object.fromEntries(rows.map((r) => [r.name, [r.status, r.recipientCount, r.sentCount]]))).toEqual({ Scheduled: ['draft', 0, 0], Sending: ['paused', 0, 0] });
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(sql`${schema.domainEvents.accountId} = ${a.account.id} and ${schema.domainEvents.type} = 'campaign_status_changed'`);
    expect(events.map((e) => e.payload).sort((x, y) => String((x as { status: string }).status).localeCompare(String((y as { status: string }).status)))).toEqual([
      { status: 'draft', previous: 'scheduled', reason: PLAN_STOPPED_REASON, message: FEATURE_DENIED_MESSAGE },
      { status: 'paused', previous: 'sending', reason: PLAN_STOPPED_REASON, message: FEATURE_DENIED_MESSAGE },
    ]);
  });

  it('the visitor socket opens with chatMessenger/enabled and is closed with the plan message without it', async () => {
    const a = await createTestAccount();
    await givePlan(a.account.id, allFeatures());
    const web = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Site' });
    const opened = await raw('/public/widget/session', { method: 'POST', host: appHost, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inboxId: web.id }) });
    expect(opened.status).toBe(200);
    const token = (JSON.parse(opened.text) as { token: string }).token;
    const server = http.createServer();
    const sockets = await startWidgetSocket(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const connect = () =>
      new Promise<{ opened: boolean; code: number; reason: string }>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=${encodeURIComponent(token)}`);
        let wasOpen = false;
        ws.on('open', () => {
          wasOpen = true;
          // Still open a moment later: the plan let it stay.
          setTimeout(() => ws.readyState === ws.OPEN && ws.close(1000, 'done'), 300);
        });
        ws.on('close', (code, reason) => resolve({ opened: wasOpen, code, reason: reason.toString() }));
        ws.on('error', reject);
      });
    try {
      expect(await connect()).toMatchObject({ code: 1000 });
      await givePlan(a.account.id, without('chatMessenger/enabled'));
      expect(await connect()).toMatchObject({ code: PLAN_CLOSE_CODE, reason: FEATURE_DENIED_MESSAGE });
    } finally {
      await sockets.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('inbound email without conversation/enabled is refused with a 4xx (SMTP) or the plan error (ingestion) and nothing is stored', async () => {
    const a = await createTestAccount();
    const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode: 'forwarding' });
    const smtp = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
    const count = async () => (await getDb().select({ n: sql<number>`count(*)::int` }).from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id)))[0].n;
    const mail = (subject: string) => Buffer.from(`From: Ada <ada@example.test>\r\nTo: support@example.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}-${Date.now()}@example.test>\r\n\r\nHello`);
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
    try {
      await givePlan(a.account.id, without('conversation/enabled'));
      await expect(ingestEmail({ inbox, raw: mail('Locked'), via: 'http' })).rejects.toBeInstanceOf(PlanFeatureDeniedError);
      const refused = mailer.sendMail({ from: 'ada@example.test', to: forwardingAddress(inbox)!, subject: 'Locked', text: 'x' });
      await expect(refused).rejects.toMatchObject({ responseCode: 451 });
      await expect(refused).rejects.toMatchObject({ response: expect.stringContaining(FEATURE_DENIED_MESSAGE) });
      expect(await count()).toBe(0);
      // The same mail, retried by its sender once the plan has the Inbox again, is taken.
      await givePlan(a.account.id, allFeatures());
      await mailer.sendMail({ from: 'ada@example.test', to: forwardingAddress(inbox)!, subject: 'Open', text: 'x' });
      expect(await count()).toBe(1);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it('a third-party webhook without integrations/enabled is verified, answered 200 and ignored', async () => {
    const a = await createTestAccount();
    const secret = 'plan-hook-secret';
    const conn = await saveConnection({ accountId: a.account.id, userId: a.owner.id, provider: 'github', externalAccount: 'acme', tokens: { accessToken: 'gho_test', refreshToken: null, expiresAt: null }, webhookSecret: secret });
    const body = JSON.stringify({ action: 'closed', issue: { number: 1 }, repository: { full_name: 'acme/shop' }, sender: { login: 'ada' } });
    const deliver = (sig = secret) =>
      raw(`/webhooks/integrations/github/${conn.id}`, {
        method: 'POST',
        host: appHost,
        headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', sig).update(body).digest('hex')}` },
        body,
      });
    await givePlan(a.account.id, allFeatures());
    expect(await deliver()).toMatchObject({ status: 200, text: '0 conversation(s)' });
    await givePlan(a.account.id, without('integrations/enabled'));
    expect(await deliver()).toMatchObject({ status: 200, text: PLAN_IGNORED.text });
    // The signature is still checked first: a forged delivery learns nothing about the plan.
    expect((await deliver('forged')).status).toBe(401);
  });
});
