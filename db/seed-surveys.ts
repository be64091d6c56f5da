import { createFolder, ensureDefaultFolder } from '../app/models/surveys/folders.server';
import { appendQuestion } from '../app/models/surveys/questions.server';
import { createSurvey, endSurvey, publishSurvey, updateSurvey } from '../app/models/surveys/surveys.server';
import type { SurveyQuestion } from '../app/models/surveys/types';

/**
 * The demo account's surveys: what a small online shop would run — an NPS after checkout on the web, a CES inside
 * the app after onboarding, a quarterly CSAT by email, a product-feedback survey still in draft, and one closed —
 * in General and two folders (one private to the owner and the admin), written through the model functions.
 */
export async function seedDemoSurveys(opts: { accountId: number; ownerId: number; adminId: number }) {
  const who = { accountId: opts.accountId, actorId: opts.ownerId };
  const general = await ensureDefaultFolder(opts);
  const customers = await createFolder({ ...who, name: 'Customer care', isPublic: true, userIds: [] });
  const product = await createFolder({ ...who, name: 'Product team', isPublic: false, userIds: [opts.ownerId, opts.adminId] });

  const edit = (list: SurveyQuestion[], i: number, patch: Partial<SurveyQuestion>) => list.map((q, j) => (j === i ? { ...q, ...patch } : q));

  // Web NPS after checkout, published, conversational.
  const nps = await createSurvey({ ...who, name: 'Checkout NPS', folderId: customers.id, subType: 'nps', channel: 'web' });
  let list = edit(nps.questions, 0, { question: 'Thanks for your order!', settings: { buttonLabel: 'Start' } });
  list = edit(list, 1, { question: 'How likely are you to recommend our shop to a friend?' });
  list = appendQuestion(list, 'text').list;
  list = edit(list, 2, { question: 'What is the main reason for your score?', isRequired: false });
  await updateSurvey({
    ...who,
    id: nps.id,
    step: 'design',
    patch: { questions: list, design: { ...nps.design, themeType: 'conversational', brandColor: '#0D9488', header: 'Two questions about your checkout' } },
  });
  await updateSurvey({ ...who, id: nps.id, step: 'settings', patch: { responseLimit: 500 } });
  await publishSurvey({ ...who, id: nps.id });

  // In-app CES after onboarding, published, on the dashboard after 10 seconds.
  const ces = await createSurvey({ ...who, name: 'Onboarding effort (CES)', folderId: customers.id, subType: 'ces', channel: 'in-app' });
  list = edit(ces.questions, 1, { question: 'Setting up my account was easy.' });
  list = appendQuestion(list, 'radio').list;
  list = edit(list, 2, {
    question: 'Which step took longest?',
    settings: {
      options: ['Adding products', 'Payment setup', 'Shipping rates'].map((choice, order) => ({ choice, enableComment: false, order })),
    },
  });
  await updateSurvey({
    ...who,
    id: ces.id,
    step: 'design',
    patch: { questions: list, design: { ...ces.design, themeType: 'small', position: 'right' } },
  });
  await updateSurvey({
    ...who,
    id: ces.id,
    step: 'target',
    patch: {
      target: {
        ...ces.target,
        showOnAllPages: false,
        allowedPages: [{ link: '/dashboard', linkType: 'start' }],
        displayMethod: 'delay',
        displayDelay: 10,
        displayScroll: null,
        showUntilResponded: true,
      },
    },
  });
  await publishSurvey({ ...who, id: ces.id });

  // Quarterly CSAT by email: a draft waiting for its tags.
  await createSurvey({ ...who, name: 'Quarterly CSAT', folderId: general.id, subType: 'csat', channel: 'email' });

  // Product feedback, custom, in the private folder: still a draft.
  const custom = await createSurvey({ ...who, name: 'Wishlist feature feedback', folderId: product.id, subType: 'custom', channel: 'web' });
  list = custom.questions;
  for (const type of ['rating', 'checkbox', 'form'] as const) list = appendQuestion(list, type).list;
  await updateSurvey({ ...who, id: custom.id, step: 'design', patch: { questions: list } });

  // Last year's holiday survey: published, then closed.
  const holiday = await createSurvey({ ...who, name: 'Holiday delivery smiley', folderId: customers.id, subType: 'smiley', channel: 'web' });
  await publishSurvey({ ...who, id: holiday.id });
  await endSurvey({ ...who, id: holiday.id, status: 'closed', reason: 'manual' });
}
