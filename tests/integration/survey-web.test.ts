import { gzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { endSurvey, updateSurvey } from '../../app/models/surveys/surveys.server';
import { createTestAccount } from '../factories';
import { startTestApp } from '../helpers/http';
import { ALL_TYPES, publishedSurvey, questionOf } from '../helpers/surveys';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setup() {
  const acc = await createTestAccount();
  return { ...acc, who: { accountId: acc.account.id, actorId: acc.owner.id } };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const pathOf = (s: { accountId: number; uniqueId: string }) => `/survey/web/${s.accountId}/${s.uniqueId}`;
const rowsOf = (surveyId: number) => getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, surveyId));
const cookieOf = (res: { headers: Record<string, string | string[] | undefined> }) => String(res.headers['set-cookie'] ?? '').split(';')[0];
const html = (s: string) => s.replace(/&/g, '&amp;').replace(/'/g, '&#x27;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

describe('web survey, traditional', () => {
  it('shows every question type on one page without script, refuses a missing required answer and shows what was typed back, then records one complete response', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, subType: 'custom', types: ALL_TYPES });
    const path = pathOf(survey);
    const page = await app.request(path, { domain: a.domain });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script[^>]+src=/);
    for (const q of version!.questions.filter((x) => x.type !== 'thank-you')) expect(page.text).toContain(html(q.question));
    expect(page.text).toContain('Submit Survey');
    expect(page.text).toContain('Powered by');
    const id = (t: Parameters<typeof questionOf>[1]) => questionOf(version!, t).id;

    const partial = await app.request(path, {
      domain: a.domain,
      form: { intent: 'submit', [`a.${id('text')}`]: 'Kept after the error', [`a.${id('nps')}`]: '9' },
    });
    expect(partial.status).toBe(400);
    expect(partial.text).toContain('This is a required question.');
    expect(partial.text).toContain('Kept after the error');
    expect(partial.text).toMatch(/checked="" value="9"/);
    const outside = await app.request(path, { domain: a.domain, form: { intent: 'submit', [`a.${id('nps')}`]: '11' } });
    expect(outside.status).toBe(400);
    expect(outside.text).toContain('must be a whole number from 0 to 10');
    expect(await rowsOf(survey.id)).toEqual([]);

    const full = {
      intent: 'submit',
      [`a.${id('text')}`]: 'Fine',
      [`a.${id('nps')}`]: '10',
      [`a.${id('radio')}`]: 'Option 2',
      [`a.${id('checkbox')}`]: ['Option 1', 'Option 3'],
      [`a.${id('rating')}`]: '4',
      [`a.${id('smiley')}`]: '5',
      [`a.${id('dropdown')}`]: 'Option 3',
      [`f.${id('form')}.0`]: 'Ada Lovelace',
      [`f.${id('form')}.1`]: 'ada@example.com',
      [`a.${id('date')}`]: '2026-11-20',
      [`a.${id('csat')}`]: '4',
      [`a.${id('ces')}`]: '6',
    };
    const done = await app.request(path, { domain: a.domain, form: full });
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe(`${path}?done=1`);
    const [row] = await rowsOf(survey.id);
    expect(row).toMatchObject({ complete: true, channel: 'web', draft: false });
    expect(row.answers[id('checkbox')]).toEqual({ choices: ['Option 1', 'Option 3'] });
    expect(row.answers[id('form')]).toEqual({ 'full name': 'Ada Lovelace', email: 'ada@example.com' });
    const thanks = await app.request(`${path}?done=1`, { domain: a.domain });
    expect(thanks.text).toContain('Thank you for finishing our Survey');
  });

  it('weighs under 25 KB gzipped with everything it loads (issue 14 target)', async () => {
    const a = await setup();
    const { survey } = await publishedSurvey({ ...a.who, subType: 'custom', types: ALL_TYPES });
    const page = await app.request(pathOf(survey), { domain: a.domain });
    const assets = [...page.text.matchAll(/<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src|img[^>]+src)="([^"]+)"/g)].map((m) => m[1]);
    const parts = [{ name: 'html', bytes: gzipSync(page.text).length }];
    for (const asset of assets) {
      const res = await app.request(asset, { domain: a.domain });
      expect(res.status, asset).toBe(200);
      parts.push({ name: asset, bytes: gzipSync(res.text).length });
    }
    const total = parts.reduce((n, p) => n + p.bytes, 0);
    console.info(
      `web survey page (13 question types): ${(total / 1024).toFixed(1)} KB gzipped (${parts
        .map((p) => `${p.name} ${(p.bytes / 1024).toFixed(1)} KB`)
        .join(', ')})`,
    );
    expect(assets.some((x) => x.endsWith('.js'))).toBe(false);
    expect(total).toBeLessThan(25 * 1024);
  });

  it('branding only when showBranding is on; a closed or unpublished survey answers 410 and takes nothing; another account never sees it', async () => {
    const a = await setup();
    const b = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who });
    await updateSurvey({ ...a.who, id: survey.id, patch: { design: { ...version!.design, showBranding: false } }, step: 'design' });
    const { publishSurvey } = await import('../../app/models/surveys/surveys.server');
    await publishSurvey({ ...a.who, id: survey.id });
    const path = pathOf(survey);
    expect((await app.request(path, { domain: a.domain })).text).not.toContain('Powered by');
    // Another account's host, or another account's id in the path: not found.
    expect((await app.request(path, { domain: b.domain })).status).toBe(404);
    expect((await app.request(`/survey/web/${b.account.id}/${survey.uniqueId}`, { domain: b.domain })).status).toBe(404);
    const nps = questionOf(version!, 'nps').id;
    expect((await app.request(path, { domain: b.domain, form: { intent: 'submit', [`a.${nps}`]: '9' } })).status).toBe(404);

    await endSurvey({ ...a.who, id: survey.id, status: 'closed', reason: 'manual' });
    const closed = await app.request(path, { domain: a.domain });
    expect(closed.status).toBe(410);
    expect(closed.text).toContain('This survey is closed.');
    const post = await app.request(path, { domain: a.domain, form: { intent: 'submit', [`a.${nps}`]: '9' } });
    expect(post.status).toBe(410);
    const draft = await publishedSurvey({ ...a.who, publish: false });
    const unpublished = await app.request(pathOf(draft.survey), { domain: a.domain });
    expect(unpublished.status).toBe(410);
    expect(unpublished.text).toContain('This survey is not open for responses.');
    expect(await rowsOf(survey.id)).toEqual([]);
    expect(await rowsOf(draft.survey.id)).toEqual([]);
  });

  it('the response limit: the response that reaches it completes the survey; the next visitor sees the closed page', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, settings: { responseLimit: 1 } });
    const nps = questionOf(version!, 'nps').id;
    expect((await app.request(pathOf(survey), { domain: a.domain, form: { intent: 'submit', [`a.${nps}`]: '7' } })).status).toBe(302);
    const next = await app.request(pathOf(survey), { domain: a.domain });
    expect(next.status).toBe(410);
    expect(next.text).toContain('This survey has received all the responses it needed.');
  });
});

async function conversational(a: Setup, more: Parameters<typeof publishedSurvey>[0] extends infer P ? Partial<P> : never = {}) {
  return publishedSurvey({ ...a.who, themeType: 'conversational', types: ['text', 'radio'], ...more });
}

describe('web survey, conversational', () => {
  it('one question per page load with progress excluding the welcome, Previous and Next, answers kept on the server; completes once', async () => {
    const a = await setup();
    const { survey, version } = await conversational(a);
    const path = pathOf(survey);
    const first = await app.request(path, { domain: a.domain });
    expect(first.status).toBe(200);
    const cookie = cookieOf(first);
    expect(cookie).toMatch(/^parley_sr=/);
    expect(first.text).toContain('We would love your feedback');
    expect(first.text).toContain('>Start<');
    const post = (form: Record<string, string>) => app.request(path, { domain: a.domain, cookie, form });
    const get = (q: string) => app.request(`${path}${q}`, { domain: a.domain, cookie });

    expect((await post({ intent: 'start', step: '0' })).headers.location).toBe(`${path}?step=1`);
    const step1 = await get('?step=1');
    expect(step1.text).toContain('1/3');
    expect(step1.text).toContain(html(questionOf(version!, 'nps').question));
    expect(step1.text).not.toContain(html(questionOf(version!, 'radio').question));
    const nps = questionOf(version!, 'nps').id;
    const required = await post({ intent: 'next', step: '1' });
    expect(required.status).toBe(400);
    expect(required.text).toContain('This is a required question.');
    expect((await post({ intent: 'next', step: '1', [`a.${nps}`]: '6' })).headers.location).toBe(`${path}?step=2`);
    // Partial submission is on by default: the first answer is a (partial) response already.
    expect((await rowsOf(survey.id))[0]).toMatchObject({ complete: false, draft: false, answers: { [nps]: 6 } });
    const step2 = await get('?step=2');
    expect(step2.text).toContain('2/3');
    expect(step2.text).toContain('class="sv-bubble sv-a">6<');
    expect((await post({ intent: 'previous', step: '2', [`a.${questionOf(version!, 'text').id}`]: 'Typed then went back' })).headers.location).toBe(
      `${path}?step=1`,
    );
    const back = await get('?step=1');
    expect(back.text).toMatch(/checked="" value="6"/);
    expect((await post({ intent: 'next', step: '1', [`a.${nps}`]: '9' })).headers.location).toBe(`${path}?step=2`);
    const step2again = await get('?step=2');
    expect(step2again.text).toContain('Typed then went back</textarea>');
    expect((await post({ intent: 'next', step: '2', [`a.${questionOf(version!, 'text').id}`]: 'Typed then went back' })).headers.location).toBe(
      `${path}?step=3`,
    );
    const done = await post({ intent: 'next', step: '3', [`a.${questionOf(version!, 'radio').id}`]: 'Option 1' });
    expect(done.headers.location).toBe(`${path}?done=1`);
    const rows = await rowsOf(survey.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      complete: true,
      answers: { [nps]: 9, [questionOf(version!, 'text').id]: 'Typed then went back', [questionOf(version!, 'radio').id]: { choice: 'Option 1' } },
    });
    // allowRetaking is off: the same browser sees "already answered".
    expect((await get('')).text).toContain('You have already answered this survey.');
  });

  it('allowRetaking starts a new response for the same browser; refreshOnCompletion reloads the start; without partial submission answers wait as a draft', async () => {
    const a = await setup();
    const { survey, version } = await conversational(a, {
      types: [],
      target: { allowRetaking: true, refreshOnCompletion: true },
      settings: { allowPartialSubmission: false },
    });
    const path = pathOf(survey);
    const cookie = cookieOf(await app.request(path, { domain: a.domain }));
    const nps = questionOf(version!, 'nps').id;
    const answerOnce = async (n: string) => {
      const res = await app.request(path, { domain: a.domain, cookie, form: { intent: 'next', step: '1', [`a.${nps}`]: n } });
      expect(res.headers.location).toBe(`${path}?done=1`);
    };
    await answerOnce('8');
    const thanks = await app.request(`${path}?done=1`, { domain: a.domain, cookie });
    expect(thanks.text).toContain(`<meta http-equiv="refresh" content="5;url=${path}"`);
    expect((await app.request(path, { domain: a.domain, cookie })).text).not.toContain('already answered');
    await answerOnce('3');
    expect((await rowsOf(survey.id)).map((r) => r.complete)).toEqual([true, true]);
    // A cookieless post cannot keep answers one page at a time: a clear 400, nothing written.
    const noCookie = await app.request(path, { domain: a.domain, form: { intent: 'next', step: '1', [`a.${nps}`]: '8' } });
    expect(noCookie.status).toBe(400);
    expect(noCookie.text).toContain('must accept cookies');
  });

  it('a respondent half way through keeps answering the version they started when the survey is published again', async () => {
    const a = await setup();
    const { survey, version } = await conversational(a, { types: [] });
    const path = pathOf(survey);
    const cookie = cookieOf(await app.request(path, { domain: a.domain }));
    const nps = questionOf(version!, 'nps').id;
    // Partial submission keeps the first answer; then the survey gets a new question and is published again.
    const { appendQuestion } = await import('../../app/models/surveys/questions.server');
    const { publishSurvey } = await import('../../app/models/surveys/surveys.server');
    expect((await app.request(path, { domain: a.domain, cookie, form: { intent: 'previous', step: '1', [`a.${nps}`]: '7' } })).status).toBe(302);
    await updateSurvey({ ...a.who, id: survey.id, patch: { questions: appendQuestion(version!.questions, 'text').list }, step: 'design' });
    const v2 = (await publishSurvey({ ...a.who, id: survey.id }))!.version;
    expect(v2.questions).toHaveLength(3);
    const step1 = await app.request(`${path}?step=1`, { domain: a.domain, cookie });
    expect(step1.text).toContain('1/1');
    const done = await app.request(path, { domain: a.domain, cookie, form: { intent: 'next', step: '1', [`a.${nps}`]: '8' } });
    expect(done.headers.location).toBe(`${path}?done=1`);
    const [row] = await rowsOf(survey.id);
    expect(row).toMatchObject({ complete: true, surveyVersionId: version!.id, answers: { [nps]: 8 } });
    // A new respondent gets the new version.
    expect((await app.request(`${path}?step=1`, { domain: a.domain })).text).toContain('1/2');
  });
});
