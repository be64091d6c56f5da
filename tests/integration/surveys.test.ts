import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createFolder, deleteFolder, ensureDefaultFolder, listFolders, SurveyInputError, updateFolder } from '../../app/models/surveys/folders.server';
import { appendQuestion, cloneQuestion, moveQuestion, removeQuestion, reorderQuestions } from '../../app/models/surveys/questions.server';
import {
  CreateSurveySchema,
  designStepSchema,
  FolderSchema,
  QUESTION_TYPES,
  settingsSchema,
  targetSchema,
  MessagesSchema,
  questionEditSchema,
} from '../../app/models/surveys/schemas';
import {
  cloneSurvey,
  closeExpiredSurveys,
  createSurvey,
  deleteSurvey,
  endSurvey,
  getSurvey,
  listSurveys,
  publishSurvey,
  updateSurvey,
} from '../../app/models/surveys/surveys.server';
import { removeSurveyLogo, uploadSurveyLogo } from '../../app/models/surveys/logo.server';
import { createTestAccount, createTestUser } from '../factories';

async function setup() {
  const acc = await createTestAccount();
  const general = await ensureDefaultFolder({ accountId: acc.account.id });
  const who = { accountId: acc.account.id, actorId: acc.owner.id };
  const viewer = { userId: acc.owner.id, isAdmin: true };
  return { ...acc, general, who, viewer };
}

const errorsOf = (r: { success: boolean; error?: { issues: { message: string; path: PropertyKey[] }[] } }) =>
  Object.fromEntries((r.error?.issues ?? []).map((i) => [i.path.join('.'), i.message]));

describe('survey validation (section 5 and 8 messages)', () => {
  it('create: name 3–100, folder and sub type', () => {
    expect(errorsOf(CreateSurveySchema.safeParse({ name: 'ab', channel: 'web' }))).toMatchObject({
      name: 'Survey Name is required.',
      folderId: 'Must select a Folder.',
      subType: 'Please select a Survey Type',
    });
    expect(CreateSurveySchema.safeParse({ name: 'x'.repeat(101), folderId: 1, subType: 'nps', channel: 'web' }).success).toBe(false);
    expect(CreateSurveySchema.safeParse({ name: 'NPS Q1', folderId: 1, subType: 'nps', channel: 'web' }).success).toBe(true);
    expect(errorsOf(FolderSchema.safeParse({ name: 'ab' })).name).toBe('Folder name must be 3 to 20 characters.');
    expect(FolderSchema.safeParse({ name: 'x'.repeat(21) }).success).toBe(false);
  });

  it('messages, questions, design limits', () => {
    const m = MessagesSchema.safeParse({ proceedToNext: 'x'.repeat(11), completion: 'x'.repeat(76), textPlaceholder: 'x'.repeat(41), dropdownPlaceholder: 'x'.repeat(31), mandatory: '' });
    expect(Object.keys(errorsOf(m)).sort()).toEqual(['completion', 'dropdownPlaceholder', 'mandatory', 'proceedToNext', 'textPlaceholder']);
    expect(errorsOf(m).mandatory).toBe('Please Enter Value');
    const radio = questionEditSchema('radio').safeParse({ question: 'Q', settings: { options: [{ choice: 'a' }] } });
    expect(errorsOf(radio)['settings.options']).toBe('Add at least 2 options');
    const longOpt = questionEditSchema('dropdown').safeParse({ question: 'Q', settings: { options: [{ choice: 'x'.repeat(51) }, { choice: 'b' }] } });
    expect(longOpt.success).toBe(false);
    expect(questionEditSchema('rating').safeParse({ question: 'Q', settings: { range: 11 } }).success).toBe(false);
    expect(questionEditSchema('smiley').safeParse({ question: 'Q', settings: { range: 4 } }).success).toBe(false);
    expect(questionEditSchema('ces').safeParse({ question: 'Q', settings: { range: 7 } }).success).toBe(true);
    expect(questionEditSchema('welcome').safeParse({ question: 'Hi', settings: { buttonLabel: 'x'.repeat(11) } }).success).toBe(false);
    expect(questionEditSchema('nps').safeParse({ question: 'Q', showHeading: true, heading: 'x'.repeat(41) }).success).toBe(false);
    expect(errorsOf(questionEditSchema('nps').safeParse({ question: 'Q', showHeading: true })).heading).toBe('Please Enter Value');
    expect(questionEditSchema('nps').parse({ question: 'Q', showHeading: false, heading: 'Hidden' }).heading).toBe('');
    expect(questionEditSchema('form').safeParse({ question: 'Q', settings: { fields: [] } }).success).toBe(false);
    const d = designStepSchema('email', null).safeParse({ design: { themeType: 'email', header: '', subject: '' }, messages: {} });
    expect(errorsOf(d)['design.header']).toBe('Please Enter Value');
    const footer = designStepSchema('web', null).parse({
      design: { themeType: 'traditional', header: 'H', footer: 'bye', footerOn: false },
      messages: { proceedToNext: 'Next', completion: 'Thanks', textPlaceholder: 'a', dropdownPlaceholder: 'b', mandatory: 'c' },
    });
    expect(footer.design.footer).toBe('');
    expect(errorsOf(designStepSchema('in-app', null).safeParse({ design: { themeType: 'traditional', header: 'H' }, messages: {} }))['design.themeType']).toBe('Please select your themes');
  });

  it('target and settings', () => {
    expect(errorsOf(targetSchema('in-app').safeParse({ displayMethod: 'delay' })).displayDelay).toBe('Please Enter Value');
    expect(targetSchema('in-app').safeParse({ displayMethod: 'delay', displayDelay: 3601 }).success).toBe(false);
    expect(targetSchema('in-app').safeParse({ displayMethod: 'scroll', displayScroll: 101 }).success).toBe(false);
    const t = targetSchema('in-app').parse({ showOnAllPages: 'all', allowedPages: [{ link: '/x', linkType: 'exact' }], displayMethod: 'scroll' });
    expect(t).toMatchObject({ allowedPages: null, displayScroll: 100, displayDelay: null });
    expect(errorsOf(targetSchema('in-app').safeParse({ showOnAllPages: 'some', allowedPages: [{ linkType: 'contain' }] }))['allowedPages.0.link']).toBe(
      'Each page condition needs a link type and a link',
    );
    expect(errorsOf(targetSchema('email').safeParse({})).tagIds).toBe('please select tag ids');
    const now = new Date('2026-11-25T10:00:00Z');
    const ok = settingsSchema(now).parse({ name: 'abc', folderId: 1, language: 'FR', responseLimitOn: true, responseLimit: 50, cutOffOn: false, cutOffDate: '2026-12-01' });
    expect(ok).toMatchObject({ responseLimit: 50, cutOffDate: null, language: 'FR' });
    expect(settingsSchema(now).safeParse({ name: 'abc', folderId: 1, language: 'EN', responseLimitOn: true, responseLimit: 1001 }).success).toBe(false);
    expect(settingsSchema(now).safeParse({ name: 'abc', folderId: 1, language: 'XX' }).success).toBe(false);
    expect(errorsOf(settingsSchema(now).safeParse({ name: 'abc', folderId: 1, language: 'EN', responseLimitOn: true })).responseLimit).toBe('Please Enter Value');
    expect(settingsSchema(now).safeParse({ name: 'abc', folderId: 1, language: 'EN', cutOffOn: true, cutOffDate: '2027-03-26' }).success).toBe(false);
    expect(errorsOf(settingsSchema(now).safeParse({ name: 'abc', folderId: 1, language: 'EN', cutOffOn: true })).cutOffDate).toBe('please select date');
  });
});

describe('surveys', () => {
  it('creates with a welcome and the sub type question, edits questions, publishes a version', async () => {
    const { who, general, viewer } = await setup();
    const survey = await createSurvey({ ...who, viewer, name: 'Checkout NPS', folderId: general.id, subType: 'nps', channel: 'web' });
    expect(survey.status).toBe('draft');
    expect(survey.uniqueId).toMatch(/^[a-z0-9]{16}$/);
    expect(survey.questions.map((q) => q.type)).toEqual(['welcome', 'nps']);

    let list = survey.questions;
    for (const type of QUESTION_TYPES.filter((t) => t !== 'welcome')) list = appendQuestion(list, type).list;
    expect(list).toHaveLength(14);
    const saved = await updateSurvey({ ...who, id: survey.id, patch: { questions: list }, step: 'design' });
    expect(saved?.changed).toBe(true);
    expect((await updateSurvey({ ...who, id: survey.id, patch: { questions: list }, step: 'design' }))?.changed).toBe(false);

    // The welcome question stays first and is not deleted; the others move.
    expect(() => moveQuestion(list, list[1].id, 'up', 'nps')).toThrow(SurveyInputError);
    expect(() => removeQuestion(list, list[0].id)).toThrow('The first question cannot be deleted');
    const moved = moveQuestion(list, list[2].id, 'up', 'nps');
    expect(moved[1].id).toBe(list[2].id);
    expect(moved.map((q) => q.order)).toEqual(moved.map((_, i) => i));
    expect(moveQuestion(list, list[1].id, 'up', 'custom')[0].id).toBe(list[1].id);
    const cloned = cloneQuestion(list, list[3].id);
    expect(cloned.list[4]).toMatchObject({ type: list[3].type, question: list[3].question });
    expect(() => reorderQuestions(list, [list[1].id, list[0].id, ...list.slice(2).map((q) => q.id)], 'nps')).toThrow('The first question stays first');
    expect(() => reorderQuestions(list, list.slice(1).map((q) => q.id), 'nps')).toThrow(SurveyInputError);

    // A list posted out of order, or with an unknown type, changes nothing.
    const before = await getSurvey({ accountId: who.accountId, id: survey.id });
    await expect(updateSurvey({ ...who, id: survey.id, patch: { questions: [list[1], list[0], ...list.slice(2)] }, step: 'design' })).rejects.toThrow(SurveyInputError);
    const unknown = list.map((q, i) => (i === 2 ? { ...q, type: 'slider' as never } : q));
    await expect(updateSurvey({ ...who, id: survey.id, patch: { questions: unknown }, step: 'design' })).rejects.toThrow('Unknown question type');
    expect((await getSurvey({ accountId: who.accountId, id: survey.id }))?.questions).toEqual(before?.questions);

    const published = await publishSurvey({ ...who, id: survey.id });
    expect(published?.survey.status).toBe('published');
    expect(published?.version.version).toBe(1);
    expect(published?.version.questions).toHaveLength(14);
    // Editing the working copy leaves the published version as it was.
    await updateSurvey({ ...who, id: survey.id, patch: { questions: removeQuestion(list, list[5].id) }, step: 'design' });
    const [v1] = await getDb().select().from(schema.surveyVersions).where(eq(schema.surveyVersions.id, published!.version.id));
    expect(v1.questions).toHaveLength(14);
    const again = await publishSurvey({ ...who, id: survey.id });
    expect(again?.version.version).toBe(2);

    const events = await getDb()
      .select({ type: schema.domainEvents.type })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, who.accountId), eq(schema.domainEvents.subjectType, 'survey'))).orderBy(schema.domainEvents.id);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['survey_created', 'survey_updated', 'survey_published']));
  });

  it('closes by hand, completes at the limit, closes after the cut-off date; publishing reopens', async () => {
    const { who, general } = await setup();
    const survey = await createSurvey({ ...who, name: 'CSAT', folderId: general.id, subType: 'csat', channel: 'in-app' });
    expect(await endSurvey({ ...who, id: survey.id, status: 'closed', reason: 'manual' })).toBeUndefined(); // a draft is not closed
    await publishSurvey({ ...who, id: survey.id });
    expect((await endSurvey({ ...who, id: survey.id, status: 'closed', reason: 'manual' }))?.status).toBe('closed');
    expect((await publishSurvey({ ...who, id: survey.id }))?.survey.status).toBe('published');
    expect((await endSurvey({ ...who, id: survey.id, status: 'completed', reason: 'response_limit' }))?.status).toBe('completed');
    await publishSurvey({ ...who, id: survey.id });
    await getDb().update(schema.surveys).set({ cutOffDate: '2020-01-01' }).where(eq(schema.surveys.id, survey.id));
    expect(await closeExpiredSurveys({ accountId: who.accountId })).toBe(1);
    expect((await getSurvey({ accountId: who.accountId, id: survey.id }))?.status).toBe('closed');
    await expect(publishSurvey({ ...who, id: survey.id })).rejects.toThrow('The cut-off date has passed');
    // Nothing to ask: no publishing.
    const empty = await createSurvey({ ...who, name: 'Custom', folderId: general.id, subType: 'custom', channel: 'web' });
    await expect(publishSurvey({ ...who, id: empty.id })).rejects.toThrow('Add at least one question before publishing.');
  });

  it("never reads or changes another account's surveys or folders", async () => {
    const a = await setup();
    const b = await setup();
    const survey = await createSurvey({ ...a.who, name: 'Secret', folderId: a.general.id, subType: 'nps', channel: 'web' });
    expect(await getSurvey({ accountId: b.account.id, id: survey.id })).toBeUndefined();
    expect(await deleteSurvey({ ...b.who, id: survey.id })).toBe(false);
    expect(await cloneSurvey({ ...b.who, id: survey.id })).toBeUndefined();
    expect(await publishSurvey({ ...b.who, id: survey.id })).toBeUndefined();
    expect(await updateSurvey({ ...b.who, id: survey.id, patch: { name: 'Mine' }, step: 'settings' })).toBeUndefined();
    expect((await listSurveys({ accountId: b.account.id, viewer: b.viewer })).total).toBe(0);
    // Another account's folder cannot hold a survey, by creation or by settings.
    await expect(createSurvey({ ...b.who, name: 'x y z', folderId: a.general.id, subType: 'nps', channel: 'web' })).rejects.toThrow('Must select a Folder.');
    await expect(updateSurvey({ ...a.who, id: survey.id, patch: { folderId: b.general.id }, step: 'settings' })).rejects.toThrow('Must select a Folder.');
    expect(await updateFolder({ ...b.who, id: a.general.id, name: 'Hacked', isPublic: true, userIds: [] })).toBeUndefined();
    expect(await deleteFolder({ ...b.who, id: a.general.id })).toBe(false);
    expect((await listFolders({ accountId: b.account.id, viewer: b.viewer })).map((f) => f.id)).not.toContain(a.general.id);
    await expect(createFolder({ ...b.who, name: 'Private', isPublic: false, userIds: [a.owner.id] })).rejects.toThrow('Choose users of this account');
  });

  it('folders: General is made once and kept; private folders hide their surveys; deleting moves surveys to General', async () => {
    const { who, general, account, viewer } = await setup();
    expect((await ensureDefaultFolder({ accountId: account.id })).id).toBe(general.id);
    await expect(deleteFolder({ ...who, id: general.id })).rejects.toThrow('The General folder cannot be deleted');
    const agent = await createTestUser({ accountId: account.id, roleKind: 'agent' });
    const other = await createTestUser({ accountId: account.id, roleKind: 'agent' });
    const priv = await createFolder({ ...who, name: 'Leadership', isPublic: false, userIds: [agent.id] });
    await expect(createFolder({ ...who, name: 'leadership', isPublic: true, userIds: [] })).rejects.toThrow('A folder with this name already exists');
    const survey = await createSurvey({ ...who, name: 'Exec pulse', folderId: priv.id, subType: 'rating', channel: 'email' });
    const agentView = { userId: agent.id, isAdmin: false };
    const otherView = { userId: other.id, isAdmin: false };
    expect((await listSurveys({ accountId: account.id, viewer: agentView })).total).toBe(1);
    expect((await listSurveys({ accountId: account.id, viewer: otherView })).total).toBe(0);
    expect(await getSurvey({ accountId: account.id, id: survey.id, viewer: otherView })).toBeUndefined();
    expect((await listFolders({ accountId: account.id, viewer: otherView })).map((f) => f.name)).toEqual(['General']);
    expect(await deleteFolder({ ...who, id: priv.id })).toBe(true);
    expect((await getSurvey({ accountId: account.id, id: survey.id, viewer }))?.folderId).toBe(general.id);
  });

  it('clones and deletes; filters the list', async () => {
    const { who, general, account, viewer } = await setup();
    const s1 = await createSurvey({ ...who, name: 'Onboarding CES', folderId: general.id, subType: 'ces', channel: 'in-app' });
    await createSurvey({ ...who, name: 'Smiles', folderId: general.id, subType: 'smiley', channel: 'web' });
    const copy = await cloneSurvey({ ...who, id: s1.id });
    expect(copy).toMatchObject({ name: 'Copy of Onboarding CES', status: 'draft', channel: 'in-app' });
    expect(copy?.uniqueId).not.toBe(s1.uniqueId);
    expect((await listSurveys({ accountId: account.id, viewer, q: 'onboarding' })).total).toBe(2);
    expect((await listSurveys({ accountId: account.id, viewer, channel: 'web' })).total).toBe(1);
    expect((await listSurveys({ accountId: account.id, viewer, status: 'published' })).total).toBe(0);
    expect(await deleteSurvey({ ...who, id: s1.id })).toBe(true);
    expect(await getSurvey({ accountId: account.id, id: s1.id })).toBeUndefined();
  });

  it('logo: png/jpg/jpeg under 2 MB, sniffed; removal clears it', async () => {
    const { who, general } = await setup();
    const survey = await createSurvey({ ...who, name: 'Logo test', folderId: general.id, subType: 'nps', channel: 'web' });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    await expect(uploadSurveyLogo({ ...who, id: survey.id, file: new File([new Uint8Array(2 * 1024 * 1024)], 'big.png') })).rejects.toThrow('File size must be less than 2mb.');
    await expect(uploadSurveyLogo({ ...who, id: survey.id, file: new File([Buffer.from('not an image')], 'fake.png') })).rejects.toThrow(SurveyInputError);
    await expect(uploadSurveyLogo({ ...who, id: survey.id, file: new File([png], 'logo.gif') })).rejects.toThrow(SurveyInputError);
    expect((await getSurvey({ accountId: who.accountId, id: survey.id }))?.logoAttachmentId).toBeNull();
    const saved = await uploadSurveyLogo({ ...who, id: survey.id, file: new File([png], 'logo.png') });
    expect(saved?.contentType).toBe('image/png');
    expect((await getSurvey({ accountId: who.accountId, id: survey.id }))?.logoAttachmentId).toBe(saved?.id);
    await removeSurveyLogo({ ...who, id: survey.id });
    expect((await getSurvey({ accountId: who.accountId, id: survey.id }))?.logoAttachmentId).toBeNull();
  });
});

describe('editor operations (ADR 054)', () => {
  it('reads only known intents, merges an edited question, and applies each button', async () => {
    const { parseEditorIntent, mergeQuestion, applyQuestionOp, targetStep } = await import('../../app/models/surveys/editor.server');
    const { starterQuestions, defaultQuestion } = await import('../../app/models/surveys/questions.server');
    expect(parseEditorIntent('add:nps', 'web')).toEqual({ kind: 'add', type: 'nps' });
    expect(parseEditorIntent('add:slider', 'web')).toBeNull();
    expect(parseEditorIntent('goto:share', 'email')).toBeNull();
    expect(parseEditorIntent('up:../../etc', 'web')).toBeNull();
    expect(parseEditorIntent(['save'] as never, 'web')).toBeNull();
    expect(targetStep({ kind: 'next' }, 'email', 'target')).toBe('settings');
    expect(targetStep({ kind: 'back' }, 'web', 'design')).toBe('design');

    const rating = defaultQuestion('rating', 1);
    const asText = mergeQuestion(rating, { heading: '', question: 'Rate us', isRequired: true, settings: { scaleStyle: 'text', range: 5 } });
    expect(asText.settings.scaleLabels).toEqual(['Very Unsatisfied', 'Unsatisfied', 'Neutral', 'Satisfied', 'Very Satisfied']);
    const form = defaultQuestion('form', 1);
    const merged = mergeQuestion(form, { heading: '', question: 'You', isRequired: false, settings: { fields: [{ type: 'company', label: 'Company', isRequired: true }] } });
    expect(merged.settings.fields).toEqual([{ type: 'company', name: 'company', label: 'Company', isRequired: true, order: 0 }]);
    const welcome = mergeQuestion(defaultQuestion('welcome', 0), { heading: '', question: 'Hi', isRequired: true, settings: { buttonLabel: 'Go' } });
    expect(welcome.isRequired).toBe(false);

    const list = [...starterQuestions('nps'), defaultQuestion('radio', 2)];
    const added = applyQuestionOp({ subType: 'nps' }, list, { kind: 'add', type: 'date' }, null);
    expect(added.list.at(-1)?.type).toBe('date');
    expect(added.selected).toBe(added.list.at(-1)?.id);
    const more = applyQuestionOp({ subType: 'nps' }, list, { kind: 'add-choice' }, list[2].id);
    expect(more.list[2].settings.options).toHaveLength(4);
    const fewer = applyQuestionOp({ subType: 'nps' }, more.list, { kind: 'remove-choice', index: 0 }, list[2].id);
    expect(fewer.list[2].settings.options?.map((o) => o.order)).toEqual([0, 1, 2]);
    const two = applyQuestionOp({ subType: 'nps' }, fewer.list, { kind: 'remove-choice', index: 0 }, list[2].id);
    expect(() => applyQuestionOp({ subType: 'nps' }, two.list, { kind: 'remove-choice', index: 0 }, list[2].id)).toThrow('A question keeps at least 2 options');
    expect(() => applyQuestionOp({ subType: 'nps' }, list, { kind: 'add', type: 'welcome' }, null)).toThrow('A survey has one welcome question');
    const deleted = applyQuestionOp({ subType: 'nps' }, list, { kind: 'delete', id: list[2].id }, list[2].id);
    expect(deleted).toMatchObject({ selected: null, toast: 'Question Deleted Successfully' });
  });
});
