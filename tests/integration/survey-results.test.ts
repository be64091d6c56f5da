import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { setAccountPlan } from '../../app/models/accounts/accounts.server';
import { recordAnswers } from '../../app/models/surveys/responses.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { publishedSurvey, questionOf } from '../helpers/surveys';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setup() {
  const a = await createTestAccount();
  const [bare] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bare.id, firstName: 'Vera' });
  return {
    ...a,
    who: { accountId: a.account.id, actorId: a.owner.id },
    owner: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    viewer: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id }),
  };
}

let n = 0;
describe('results page', () => {
  it('shows the counts, NPS/CSAT/CES, distributions and text answers; filters by date and channel; exports CSV; guarded', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, types: ['csat', 'ces', 'text'] });
    const id = (t: Parameters<typeof questionOf>[1]) => questionOf(version!, t).id;
    for (const [nps, csat, ces, text, day] of [
      [10, 5, 7, 'Brilliant <b>service</b>', '2026-11-10'],
      [9, 4, 6, 'Quick', '2026-11-11'],
      [2, 2, 2, 'Slow', '2026-11-12'],
    ] as const) {
      await recordAnswers({
        accountId: a.account.id,
        surveyId: survey.id,
        channel: 'web',
        responseKey: `results${n++}abcdefgh`,
        complete: true,
        respondent: { respondentKey: 'r' },
        answers: { [id('nps')]: nps, [id('csat')]: csat, [id('ces')]: ces, [id('text')]: text },
        now: new Date(`${day}T12:00:00Z`),
      });
    }
    const path = `/surveys/${survey.id}/results`;
    const page = await app.request(path, { domain: a.domain, cookie: a.owner });
    expect(page.status).toBe(200);
    const strong = (testid: string) => new RegExp(`data-testid="${testid}"><span class="muted">[^<]+</span><strong>([^<]+)</strong>`).exec(page.text)?.[1];
    expect(strong('total-responses')).toBe('3');
    expect(strong('completion-rate')).toBe('100%');
    expect(strong('nps-score')).toBe('33');
    expect(strong('csat-score')).toBe('66.7%');
    expect(strong('ces-score')).toBe('5');
    expect(page.text).toContain('Brilliant &lt;b&gt;service&lt;/b&gt;');
    expect(page.text).toContain('<svg viewBox="0 0 100 40"');
    const filtered = await app.request(`${path}?from=2026-11-11&to=2026-11-11`, { domain: a.domain, cookie: a.owner });
    expect(/data-testid="nps-score"><span class="muted">[^<]+<\/span><strong>([^<]+)<\/strong>/.exec(filtered.text)?.[1]).toBe('100');
    const inApp = await app.request(`${path}?channel=in-app`, { domain: a.domain, cookie: a.owner });
    expect(/data-testid="total-responses"><span class="muted">[^<]+<\/span><strong>([^<]+)<\/strong>/.exec(inApp.text)?.[1]).toBe('0');

    const csv = await app.request(`${path}/export`, { domain: a.domain, cookie: a.owner });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['transfer-encoding']).toBe('chunked');
    const lines = csv.text.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('Brilliant <b>service</b>');

    // No manage_surveys: refused; another account: not found; the plan area off: refused.
    expect((await app.request(path, { domain: a.domain, cookie: a.viewer })).status).toBe(403);
    expect((await app.request(`${path}/export`, { domain: a.domain, cookie: a.viewer })).status).toBe(403);
    const b = await setup();
    expect((await app.request(path, { domain: b.domain, cookie: b.owner })).status).toBe(404);
    expect((await app.request(`${path}/export`, { domain: b.domain, cookie: b.owner })).status).toBe(404);
    await setAccountPlan({ domain: a.domain, planKey: 'starter', status: 'active' });
    expect((await app.request(path, { domain: a.domain, cookie: a.owner })).status).toBe(403);
  });
});
