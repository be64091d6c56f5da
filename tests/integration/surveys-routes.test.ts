import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { PlanFeatures } from '../../db/schema/accounts';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import { ensureDefaultFolder } from '../../app/models/surveys/folders.server';
import { createSurvey, getSurvey } from '../../app/models/surveys/surveys.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { createTestAccount, createTestUser, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup(features?: PlanFeatures) {
  const a = await createTestAccount();
  if (features) await givePlan(a.account.id, features);
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie = owner) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string | string[]>, cookie = owner) => app.request(path, { domain: a.domain, cookie, form });
  const general = await ensureDefaultFolder({ accountId: a.account.id });
  const survey = await createSurvey({
    accountId: a.account.id,
    actorId: a.owner.id,
    name: 'Checkout NPS',
    folderId: general.id,
    subType: 'nps',
    channel: 'web',
  });
  return { ...a, agentCookie, get, post, general, survey };
}

const designForm = (extra: Record<string, string>) => ({
  'design.themeType': 'traditional',
  'design.header': 'Header',
  'messages.proceedToNext': 'Next',
  'messages.completion': 'Thanks',
  'messages.textPlaceholder': 'Type here',
  'messages.dropdownPlaceholder': 'Pick one',
  'messages.mandatory': 'Required',
  ...extra,
});

describe('survey routes', () => {
  it('the plan area and manage_surveys are enforced on the server', async () => {
    const noPlan = await setup({ conversation: { enabled: true } });
    const denied = await noPlan.get('/surveys');
    expect(denied.status).toBe(403);
    expect(denied.text).toContain(FEATURE_DENIED_MESSAGE);
    expect(
      (await noPlan.post('/surveys?index', { intent: 'create', name: 'New one', folderId: String(noPlan.general.id), subType: 'nps', channel: 'web' })).status,
    ).toBe(403);
    expect((await noPlan.get(`/surveys/edit/${noPlan.survey.id}/web/design`)).status).toBe(403);

    const s = await setup();
    // An agent without manage_surveys sees the list, locked, and can change nothing.
    const list = await s.get('/surveys', s.agentCookie);
    expect(list.status).toBe(200);
    expect(list.text).toContain('create-survey-denied');
    expect(
      (
        await s.post(
          '/surveys?index',
          { intent: 'create', name: 'Agent survey', folderId: String(s.general.id), subType: 'nps', channel: 'web' },
          s.agentCookie,
        )
      ).status,
    ).toBe(403);
    expect((await s.post('/surveys?index', { intent: 'delete', id: String(s.survey.id) }, s.agentCookie)).status).toBe(403);
    expect((await s.get(`/surveys/edit/${s.survey.id}/web/design`, s.agentCookie)).status).toBe(403);
    expect((await s.post(`/surveys/edit/${s.survey.id}/web/share`, { intent: 'publish' }, s.agentCookie)).status).toBe(403);
    expect((await getSurvey({ accountId: s.account.id, id: s.survey.id }))?.status).toBe('draft');
  });

  it("another account's survey is a 404 everywhere", async () => {
    const a = await setup();
    const b = await setup();
    expect((await b.get(`/surveys/edit/${a.survey.id}/web/design`)).status).toBe(404);
    expect((await b.post(`/surveys/edit/${a.survey.id}/web/share`, { intent: 'publish' })).status).toBe(404);
    expect((await b.post('/surveys?index', { intent: 'delete', id: String(a.survey.id) })).status).toBe(404);
    expect((await b.post('/surveys?index', { intent: 'clone', id: String(a.survey.id) })).status).toBe(404);
    expect((await b.post('/surveys?index', { intent: 'folder-delete', id: String(a.general.id) })).status).toBe(404);
    // A folder of another account cannot receive a survey.
    const made = await b.post('/surveys?index', { intent: 'create', name: 'Sneaky', folderId: String(a.general.id), subType: 'nps', channel: 'web' });
    expect(made.status).toBe(400);
    expect(made.text).toContain('Must select a Folder.');
    expect((await b.get(`/survey/logo/${a.account.id}/${a.survey.uniqueId}`)).status).toBe(404);
    expect((await getSurvey({ accountId: a.account.id, id: a.survey.id }))?.status).toBe('draft');
  });

  it('the editor: index to design, the channel in the address corrected, steps of the channel only', async () => {
    const s = await setup();
    const index = await s.get(`/surveys/edit/${s.survey.id}/web`);
    expect(index.status).toBe(302);
    expect(index.headers.location).toBe(`/surveys/edit/${s.survey.id}/web/design`);
    const wrong = await s.get(`/surveys/edit/${s.survey.id}/email/target`);
    expect(wrong.headers.location).toBe(`/surveys/edit/${s.survey.id}/web/target`);
    expect((await s.get(`/surveys/edit/${s.survey.id}/web/nowhere`)).status).toBe(404);
    const email = await createSurvey({
      accountId: s.account.id,
      actorId: s.owner.id,
      name: 'Mail CSAT',
      folderId: s.general.id,
      subType: 'csat',
      channel: 'email',
    });
    expect((await s.get(`/surveys/edit/${email.id}/email/share`)).status).toBe(404);
    // Publish belongs to the last step only.
    expect((await s.post(`/surveys/edit/${s.survey.id}/web/design`, designForm({ intent: 'publish' }))).status).toBe(400);
  });

  it('bad question lists and unknown types change nothing; a refused design keeps what was typed', async () => {
    const s = await setup();
    const path = `/surveys/edit/${s.survey.id}/web/design`;
    const before = (await getSurvey({ accountId: s.account.id, id: s.survey.id }))!;
    const [welcome, nps] = before.questions.map((q) => q.id);
    // Unknown type.
    expect((await s.post(path, designForm({ intent: 'add:slider' }))).status).toBe(400);
    // Out of order: the welcome question off the first place of an NPS survey, a missing id, a foreign id.
    const swapped = await s.post(path, { intent: 'reorder', order: [nps, welcome] });
    expect(swapped.status).toBe(400);
    expect(swapped.text).toContain('The first question stays first');
    expect((await s.post(path, { intent: 'reorder', order: [welcome] })).text).toContain('The new order must list every question of the survey once');
    expect((await s.post(path, { intent: 'reorder', order: [welcome, 'zzzzzzzz'] })).status).toBe(400);
    expect((await s.post(path, { intent: 'reorder', order: [welcome, nps, nps] })).status).toBe(400);
    // Deleting the first question, moving into position 0, a question of nowhere.
    expect((await s.post(path, designForm({ intent: `delete:${welcome}` }))).text).toContain('The first question cannot be deleted');
    expect((await s.post(path, designForm({ intent: `up:${nps}` }))).text).toContain('The first question stays first');
    expect((await s.post(path, designForm({ intent: 'select:abcdef123' }))).status).toBe(404);
    // A refused message keeps the typed header.
    const refused = await s.post(path, designForm({ intent: 'save', 'design.header': 'Typed header', 'messages.proceedToNext': 'x'.repeat(11) }));
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Length must be less than or equal to 10 characters');
    expect(refused.text).toContain('Typed header');
    expect((await getSurvey({ accountId: s.account.id, id: s.survey.id }))!.updatedAt).toEqual(before.updatedAt);
    // The same order is accepted (nothing changes), then a valid save.
    expect((await s.post(path, { intent: 'reorder', order: [welcome, nps] })).status).toBe(302);
    const ok = await s.post(path, designForm({ intent: 'next' }));
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe(`/surveys/edit/${s.survey.id}/web/target`);
  });

  it('share: instructions go by email through the outbound mail; the messages of the form', async () => {
    const s = await setup();
    const inApp = await createSurvey({
      accountId: s.account.id,
      actorId: s.owner.id,
      name: 'In-app CES',
      folderId: s.general.id,
      subType: 'ces',
      channel: 'in-app',
    });
    const path = `/surveys/edit/${inApp.id}/in-app/share`;
    expect((await s.get(path)).text).toContain('create a messenger inbox');
    await createWebInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Site chat' });
    const page = await s.get(path);
    expect(page.text).toContain(`data-survey=&quot;${inApp.uniqueId}&quot;`);
    const bad = await s.post(path, { intent: 'share', emails: 'dev@example.test, not-an-email', message: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('not-an-email is not a valid email address');
    const sent = await s.post(path, { intent: 'share', emails: 'dev@example.test, web@example.test', message: 'Please add this before Friday.' });
    expect(sent.status).toBe(302);
    const mails = await getDb().select().from(schema.outboundEmails).where(eq(schema.outboundEmails.accountId, s.account.id));
    const toDev = mails.find((m) => m.to === 'dev@example.test');
    expect(toDev?.subject).toBe('Install the survey "In-app CES"');
    expect(toDev?.text).toContain('Please add this before Friday.');
    expect(toDev?.text).toContain(`data-survey="${inApp.uniqueId}"`);
    expect(mails.some((m) => m.to === 'web@example.test')).toBe(true);
  });
});
