import http from 'node:http';
import zlib from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { buildWidgetBundle, SURVEY_MODULE_ENTRY, SURVEY_MODULE_GZIP_BUDGET } from '../../app/models/channels/widget-bundle.server';
import { postVisitorMessage, visitorFromToken } from '../../app/models/channels/widget.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { conditionMatches } from '../../app/models/surveys/in-app.server';
import { endSurvey } from '../../app/models/surveys/surveys.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';
import { startTestApp } from '../helpers/http';
import { publishedSurvey, questionOf } from '../helpers/surveys';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

type Res = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; json: () => any };
function call(pathname: string, opts: { json?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<Res> {
  const headers: Record<string, string> = { host: process.env.APP_HOST ?? 'localhost:3000', origin: 'https://shop.example', ...opts.headers };
  const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
  if (body) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: pathname, method: body ? 'POST' : 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf, json: () => JSON.parse(buf.toString('utf8')) });
      });
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function setup() {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website' });
  return { ...a, inbox, who: { accountId: a.account.id, actorId: a.owner.id } };
}

const session = (inboxId: number, url: string, extra: Record<string, unknown> = {}) => call('/public/widget/session', { json: { inboxId, url, ...extra } });

describe('page conditions', () => {
  it('exact, contain, start and end, on a path or a whole address', () => {
    const url = 'https://shop.example/pricing/teams?plan=pro';
    expect(conditionMatches({ link: '/pricing/teams', linkType: 'exact' }, 'https://shop.example/pricing/teams/')).toBe(true);
    expect(conditionMatches({ link: '/pricing', linkType: 'exact' }, url)).toBe(false);
    expect(conditionMatches({ link: 'plan=pro', linkType: 'contain' }, url)).toBe(true);
    expect(conditionMatches({ link: '/pricing', linkType: 'start' }, url)).toBe(true);
    expect(conditionMatches({ link: 'https://shop.example/pri', linkType: 'start' }, url)).toBe(true);
    expect(conditionMatches({ link: 'https://other.example/pri', linkType: 'start' }, url)).toBe(false);
    expect(conditionMatches({ link: '/teams', linkType: 'end' }, url)).toBe(true);
    expect(conditionMatches({ link: '/teams', linkType: 'end' }, 'not a url')).toBe(false);
  });
});

describe('in-app surveys through the widget', () => {
  it('the session carries the survey only on a targeted page; answers are recorded as given, linked to the visitor, contact and conversation; completion fires the workflow', async () => {
    const a = await setup();
    const none = await session(a.inbox.id, 'https://shop.example/pricing');
    expect(none.status).toBe(200);
    expect(none.json().survey).toBeNull();
    expect(none.json().surveysLive).toBe(false);

    const { survey, version } = await publishedSurvey({
      ...a.who,
      channel: 'in-app',
      types: ['text'],
      target: {
        showOnAllPages: false,
        allowedPages: [{ link: '/pricing', linkType: 'start' }],
        displayMethod: 'delay',
        displayDelay: 2,
        showUntilResponded: true,
      },
    });
    const about = (await session(a.inbox.id, 'https://shop.example/about')).json();
    expect(about.survey).toBeNull();
    // A single-page site moving to a targeted address asks again, and gets the survey.
    expect(about.surveysLive).toBe(true);
    const moved = await call(`/public/widget/survey?url=${encodeURIComponent('https://shop.example/pricing/teams')}`, { token: about.token });
    expect(moved.status).toBe(200);
    expect(moved.json().survey).toMatchObject({ id: survey.id });
    expect((await call(`/public/widget/survey?url=${encodeURIComponent('https://shop.example/blog')}`, { token: about.token })).json().survey).toBeNull();
    expect((await call(`/public/widget/survey?url=${encodeURIComponent('https://shop.example/pricing')}`)).status).toBe(401);
    expect((await call('/public/widget/survey?url=', { token: about.token })).status).toBe(400);
    const s1 = await session(a.inbox.id, 'https://shop.example/pricing?x=1');
    const offered = s1.json().survey;
    expect(offered).toMatchObject({ id: survey.id, display: { method: 'delay', delay: 2, untilResponded: true }, responseKey: null });
    expect(offered.questions.map((q: { type: string }) => q.type)).toEqual(['welcome', 'nps', 'text']);
    // A snippet naming another survey shows nothing here.
    expect((await session(a.inbox.id, 'https://shop.example/pricing', { survey: 'zzzzzzzzzzzzzzzz' })).json().survey).toBeNull();

    const token = s1.json().token as string;
    const found = await visitorFromToken(token);
    const { conversationId } = await postVisitorMessage({
      visitor: found!.visitor,
      text: 'Hello, a question about pricing',
      email: 'visitor@example.com',
      name: 'Vi Sitor',
    });
    const tag = await createTag({ ...a.who, name: 'surveyed', color: 'blue' });
    await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: a.account.id,
        kind: 'workflow',
        name: 'Tag surveyed',
        event: 'survey_received',
        conditions: [],
        conditionOperator: 'and',
        filters: [],
        actions: [{ type: 'assign_tag', tagIds: [tag.id] }],
        sources: [],
        isActive: true,
      });
    const after = await lastEventId(a.account.id);

    const nps = questionOf(version!, 'nps').id;
    const text = questionOf(version!, 'text').id;
    const responseKey = 'inapp0123456789abc';
    const bad = await call('/public/widget/survey/answer', { token, json: { surveyId: survey.id, responseKey, answers: { [nps]: 12 } } });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/from 0 to 10/);
    const partial = await call('/public/widget/survey/answer', {
      token,
      json: { surveyId: survey.id, responseKey, answers: { [nps]: 3 }, url: 'https://shop.example/pricing' },
    });
    expect(partial.status).toBe(200);
    expect(partial.headers['access-control-allow-origin']).toBe('*');
    // Reloading mid-way: the session offers the same survey with the answers so far.
    const again = (await session(a.inbox.id, 'https://shop.example/pricing', { token })).json().survey;
    expect(again).toMatchObject({ responseKey, answers: { [nps]: 3 } });
    const done = await call('/public/widget/survey/answer', {
      token,
      json: { surveyId: survey.id, responseKey, answers: { [text]: 'Too pricey' }, complete: true },
    });
    expect(done.json()).toEqual({ ok: true, complete: true });
    // A retry of the same completion (the connection dropped after the server had it) changes nothing.
    expect(
      (await call('/public/widget/survey/answer', { token, json: { surveyId: survey.id, responseKey, answers: { [text]: 'Too pricey' }, complete: true } }))
        .status,
    ).toBe(200);

    const rows = await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      channel: 'in-app',
      complete: true,
      widgetVisitorId: found!.visitor.id,
      conversationId,
      pageUrl: 'https://shop.example/pricing',
      answers: { [nps]: 3, [text]: 'Too pricey' },
    });
    expect(rows[0].contactId).not.toBeNull();
    await drainEvents(a.account.id, { after });
    const tags = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversationId));
    expect(tags.map((t) => t.tagId)).toEqual([tag.id]);
    // Responded: the survey is no longer offered to this visitor.
    expect((await session(a.inbox.id, 'https://shop.example/pricing', { token })).json().survey).toBeNull();
  });

  it("closed surveys and other accounts' surveys take no answer", async () => {
    const a = await setup();
    const b = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, channel: 'in-app' });
    const nps = questionOf(version!, 'nps').id;
    const tokenB = (await session(b.inbox.id, 'https://b.example/')).json().token;
    const cross = await call('/public/widget/survey/answer', {
      token: tokenB,
      json: { surveyId: survey.id, responseKey: 'crossaccount1234', answers: { [nps]: 9 }, complete: true },
    });
    expect(cross.status).toBe(404);
    const tokenA = (await session(a.inbox.id, 'https://a.example/')).json().token;
    await endSurvey({ ...a.who, id: survey.id, status: 'closed', reason: 'manual' });
    expect((await session(a.inbox.id, 'https://a.example/', { token: tokenA })).json().survey).toBeNull();
    const closed = await call('/public/widget/survey/answer', {
      token: tokenA,
      json: { surveyId: survey.id, responseKey: 'closedsurvey1234', answers: { [nps]: 9 } },
    });
    expect(closed.status).toBe(410);
    expect(closed.json()).toMatchObject({ closed: true, error: 'This survey is closed.' });
    const noToken = await call('/public/widget/survey/answer', { json: { surveyId: survey.id, responseKey: 'closedsurvey1234', answers: {} } });
    expect(noToken.status).toBe(401);
    expect(
      await getDb()
        .select()
        .from(schema.surveyResponses)
        .where(and(eq(schema.surveyResponses.surveyId, survey.id))),
    ).toEqual([]);
  });

  it('the survey module is a separate script under 12 KB gzipped, served compressed', async () => {
    const bundle = await buildWidgetBundle(SURVEY_MODULE_ENTRY);
    const gz = zlib.gzipSync(bundle.code, { level: 9 }).length;
    console.info(`widget-survey.js: ${bundle.code.length} bytes, ${gz} bytes gzip (budget ${SURVEY_MODULE_GZIP_BUDGET})`);
    expect(gz).toBeLessThan(SURVEY_MODULE_GZIP_BUDGET);
    const res = await call('/public/widget-survey.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});
