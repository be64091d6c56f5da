import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createBusinessHours } from '../../../app/models/automation/business-hours.server';
import { createRoutingRule } from '../../../app/models/automation/routing.server';
import { createSlaPolicy } from '../../../app/models/automation/sla-policies.server';
import { defaultSlaTargets } from '../../../app/models/automation/sla-policies.schemas';
import { createWorkflow } from '../../../app/models/automation/workflows.server';
import { createCompany } from '../../../app/models/crm/companies.server';
import { createContact } from '../../../app/models/crm/contacts.server';
import { createSegment } from '../../../app/models/crm/segments.server';
import { quarantineEmail } from '../../../app/models/email/quarantine.server';
import { createTrustedDomain } from '../../../app/models/email/trusted-domains.server';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createEmailCampaign, createMessageCampaign, createPushCampaign } from '../../../app/models/campaigns/campaigns.server';
import { createPushSegment } from '../../../app/models/campaigns/push-segments.server';
import { createCampaignTemplate } from '../../../app/models/campaigns/templates.server';
import { createEmailInbox } from '../../../app/models/email/email-inboxes.server';
import { createGoogleBusinessInbox } from '../../../app/models/channels/google-business.server';
import { createCannedResponse } from '../../../app/models/productivity/canned-responses.server';
import { createContactForm } from '../../../app/models/productivity/contact-forms.server';
import { createEmailTemplate } from '../../../app/models/productivity/email-templates.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { createArticle, listVersions, updateArticle } from '../../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase, updateKnowledgeBaseSettings } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { saveKbImage } from '../../../app/models/knowledge-base/images.server';
import { ALL_PERMISSIONS } from '../../../app/models/roles/permissions';
import { createRole } from '../../../app/models/roles/roles.server';
import { createTeam } from '../../../app/models/teams/teams.server';
import { ensureDefaultFolder } from '../../../app/models/surveys/folders.server';
import { createChatbot, saveChatbotFlow } from '../../../app/models/chatbots/chatbots.server';
import { SAMPLE_FLOW } from '../../../app/models/chatbots/sample-flow';
import { createSurvey } from '../../../app/models/surveys/surveys.server';
import { availableSlots, bookMeeting } from '../../../app/models/meetings/bookings.server';
import { createMeetingType } from '../../../app/models/meetings/meetings.server';
import { recordAnswers } from '../../../app/models/surveys/responses.server';
import { ALL_TYPES, publishedSurvey } from '../../helpers/surveys';
import { createTestAccount, createTestUser } from '../../factories';
import { createWebhook } from '../../../app/models/webhooks/webhooks.server';
import { createForm, setFormStatus, submitForm } from '../../../app/models/forms/forms.server';
import { createSource, setReviewFeatured, submitPublicReview } from '../../../app/models/reviews/reviews.server';

/**
 * Every screen of Parley, for the checks that must hold on all of them (accessibility, console errors).
 * A new route joins this list, or `EXCLUDED` with the reason; screens.spec.ts fails on a route in neither.
 * `{name}` stands for an id or code of the account made by `seedScreensAccount`.
 */
export const SIGNED_IN_SCREENS = [
  '/home', '/inbox', '/inbox?view=all', '/inbox/{conversation}', '/inbox/{conversation}?aq=a', '/inbox/new', '/inbox/compose', '/help-center/inbox', '/help-center?q=tags', '/notifications', '/search?q=ada',
  '/knowledgebase', '/campaigns', '/surveys', '/reviews', '/forms', '/chatbots', '/analytics', '/help-center', '/getting-started',
  '/customers', '/customers/{contact}', '/customers/new', '/customers/companies', '/customers/companies/{company}',
  '/customers/segment/{segment}', '/customers/segments/new', '/customers/companies/segment/{companySegment}', '/customers/import',
  '/customers/liveview', '/customers/meetings',
  '/workflows', '/workflows/builder', '/workflows/builder/{workflow}',
  '/analytics/overview', '/analytics/metrics', '/analytics/staffing-prediction', '/analytics/goals',
  '/analytics/visitors', '/analytics/surveys', '/analytics/searches',
  '/settings', '/settings/my-profile', '/settings/notification', '/settings/my-plan', '/settings/account-settings',
  '/settings/users', '/settings/users/{agent}', '/settings/roles', '/settings/roles/{role}', '/settings/teams', '/settings/teams/{team}',
  '/settings/tags', '/settings/tags/{tag}', '/settings/canned-responses', '/settings/canned-responses/{canned}', '/settings/ai-help',
  '/settings/email-templates', '/settings/email-templates/{template}', '/settings/contact-form', '/settings/contact-form/{contactForm}', '/settings/contact-form/new',
  '/settings/emails', '/settings/emails/{emailInbox}', '/settings/trusted-domain', '/settings/trusted-domain/{trustedDomain}',
  '/settings/chat-messenger', '/settings/appearance', '/settings/configure', '/settings/advanced', '/settings/offline-experience', '/settings/chat-pages',
  '/settings/sms', '/settings/sms/new', '/settings/facebook', '/settings/facebook/new', '/settings/twitter', '/settings/twitter/new', '/settings/google-business',
  '/settings/business-hours', '/settings/business-hours/{hours}', '/settings/sla-policy', '/settings/sla-policy/{sla}',
  '/settings/routing', '/settings/routing/{routing}', '/settings/automation-rules', '/settings/automation-rules/new',
  '/settings/failed-automations', '/settings/integrations', '/no-such-page',
  '/settings/integrations/shopify', '/settings/integrations/github', '/settings/integrations/hubspot', '/settings/integrations/bigcommerce', '/settings/integrations/pipedrive',
  '/settings/integrations/asana', '/settings/integrations/clickup',
  '/settings/audit-logs', '/inbox/time', '/inbox/{conversation}/time',
  '/inbox/message', '/settings/security', '/settings/google-business/{googleInbox}',
  '/settings/data-export', '/customers/{contact}/erase',
  '/settings/meetings', '/settings/meetings/create', '/settings/meetings/{meeting}', '/customers/meetings/{meeting}',
  '/knowledgebase/{kb}/articles', '/knowledgebase/{kb}/articles/new', '/knowledgebase/{kb}/articles/{kbArticle}',
  '/knowledgebase/{kb}/articles/{kbArticle}/version/{kbVersion}', '/knowledgebase/{kb}/articles/{kbArticle}/version-control/{kbVersions}',
  '/knowledgebase/{kb}/categories', '/knowledgebase/{kb}/categories/{kbCategory}', '/knowledgebase/{kb}/general',
  '/knowledgebase/{kb}/seo', '/knowledgebase/{kb}/custom-css-js', '/knowledgebase/{kb}/advance', '/knowledgebase/{kb}/redirect-rules',
  '/knowledgebase/{kb}/customization', '/knowledgebase/{kb}/version-control',
  '/knowledgebase/{kb}/backup-and-restore', '/knowledgebase/{kb}/import-export',
  '/surveys?new=web', '/surveys?folder-form=new', '/surveys/edit/{webSurvey}/web/design', '/surveys/edit/{webSurvey}/web/target',
  '/surveys/edit/{webSurvey}/web/settings', '/surveys/edit/{webSurvey}/web/share', '/surveys/edit/{inAppSurvey}/in-app/design',
  '/surveys/edit/{inAppSurvey}/in-app/target', '/surveys/edit/{inAppSurvey}/in-app/share', '/surveys/edit/{emailSurvey}/email/design',
  '/surveys/edit/{emailSurvey}/email/target', '/surveys/edit/{emailSurvey}/email/settings',
  '/settings/email-survey', '/settings/email-survey/new', '/settings/chat-survey', '/settings/chat-survey/new',
  '/surveys/{resultsSurvey}/results',
  '/chatbots/{chatbot}',
  '/settings/campaigns-templates', '/settings/campaigns-templates/new', '/settings/campaigns-templates/{campaignTemplate}',
  '/campaigns/email/new', '/campaigns/email/{emailCampaign}', '/campaigns/sms/new',
  '/campaigns/message/new', '/campaigns/message/{messageCampaign}',
  '/campaigns/push-segment', '/campaigns/push-segment/new', '/campaigns/push-segment/{pushSegment}', '/campaigns/push/new', '/campaigns/push/{pushCampaign}',
  '/forms/all', '/forms/all?new=1', '/forms/edit/{form}', '/forms/responses/{form}', '/forms/responses/{form}/{formResponse}',
  '/reviews/{review}', '/settings/sources', '/settings/sources?source=new&kind=google',
  '/settings/developer-api', '/settings/webhooks', '/settings/webhooks/{webhook}',
  '/settings/email-setup',
  '/settings/goals', '/settings/goals/add', '/settings/sales-tracker', '/settings/sales-tracker/add', '/analytics/chat', '/analytics/sales-tracking',
] as const;

/** Signed out, on the account's address. */
export const SIGNED_OUT_SCREENS = ['/signin', '/forgot-password', '/emailverify', '/extra-details', '/set-password?token=x', '/contact/{contactFormCode}', '/public/chat/{chatCode}',
  '/hc/{kbSlug}', '/hc/{kbSlug}/articles/{kbArticlePath}', '/hc/{kbSlug}/categories/{kbCategoryPath}', '/hc/{kbSlug}/search?q=invoice',
  '/survey/web/{account}/{resultsSurveyKey}', '/survey/web/{account}/{chatSurveyKey}?step=1',
  '/meet/{meetingSlug}', '/f/{formCode}', '/r/{reviewCode}', '/testimonials', '/confirm-email?token=x'] as const;

/** On the bare host, before there is an account. */
export const BARE_HOST_SCREENS = ['/', '/signup', '/forgot-domain', '/verify-domain', '/thankyou', '/dev/mailbox', '/operator/signin', '/operator/set-password?token=x'] as const;

/** Route files that are not screens a person reads, or that a listed screen already covers. */
export const EXCLUDED: Record<string, string> = {
  // The operator's console (ADR 152) is signed in as an operator, which this crawl's account sign-in is not.
  'operator._index.tsx': 'signed in as an operator, not as an account user (tests/e2e/operator/console.spec.ts)',
  'operator.accounts.$id.tsx': 'signed in as an operator (tests/e2e/operator/console.spec.ts, tests/integration/operator-console.test.ts)',
  'operator.accounts.$id_.delete.tsx': 'signed in as an operator (tests/e2e/operator/console.spec.ts, tests/integration/operator-console.test.ts)',
  'operator.audit.tsx': 'signed in as an operator (tests/e2e/operator/console.spec.ts, tests/integration/operator-console.test.ts)',
  'operator.status.tsx': 'signed in as an operator (tests/e2e/operator/console.spec.ts, tests/integration/operator-console.test.ts)',
  'operator_.signout.tsx': 'signs out and redirects',
  'attachments.$id.tsx': 'a file download',
  'avatars.$id.tsx': 'an image',
  'public.widget.$op.tsx': 'the widget API',
  'public.widget.file.$token.tsx': 'a file download',
  'public.widget[.]js.tsx': 'the widget script',
  'widget.agent-typing.tsx': 'a JSON endpoint',
  '_auth.logout.tsx': 'signs out and redirects',
  '_auth.two-factor.tsx': 'the second step of a sign-in, reached only with a session waiting for its code (tests/e2e/auth/account-security.spec.ts)',
  '_auth.two-factor-setup.tsx': 'reached only at sign-in to an account that requires two-factor (tests/integration/account-security.test.ts)',
  'session.keep-alive.tsx': 'a JSON endpoint (the idle sign-out ping)',
  '_app.customers.import_.$importId.tsx': 'needs an uploaded import file (tests/e2e/crm/import.spec.ts)',
  '_app.customers.import_.$importId_.failures.tsx': 'needs an uploaded import file (tests/e2e/crm/import.spec.ts)',
  '_app.customers.export.tsx': 'a CSV download',
  '_app.settings.emails_.connect.$provider.tsx': 'the OAuth start (a post) and the provider\'s redirect back; no page of its own (tests/e2e/settings/email-oauth.spec.ts, tests/integration/email-oauth.test.ts)',
  '_app.settings.data-export_.$exportId.download.tsx': 'an account archive download, once (tests/e2e/settings/data-export.spec.ts)',
  'meet.booking.$token.tsx': 'reached by a link signed with the server\'s secret, which this test process does not share (tests/e2e/meetings/meetings.spec.ts opens it from the email)',
  'meet.booking.$token_.ics.tsx': 'a calendar file download (tests/integration/meetings.test.ts)',
  'meet.booking.$token_.reschedule.tsx': 'reached by the booking\'s signed link, like meet.booking.$token.tsx (tests/e2e/meetings/meetings.spec.ts opens it)',
  'audit-logs.tsx': 'a JSON endpoint (tests/integration/audit-logs.test.ts)',
  'qa-audit.trail-logs.tsx': 'a JSON endpoint (tests/integration/audit-logs.test.ts)',
  '_app.settings.meetings.google.tsx': 'a redirect to Google (tests/integration/meetings.test.ts)',
  '_app.settings.sources_.google.tsx': 'the redirect back from the Google consent page (tests/integration/review-google-consent.test.ts)',
  '_app.inbox.time_.export.tsx': 'a CSV download (tests/integration/time-tracking.test.ts)',
  '_app.settings.audit-logs_.export.tsx': 'a CSV download (tests/integration/audit-logs.test.ts)',
  '_app.settings.emails.$inboxId_.quarantine.$quarantineId.tsx': 'a .eml download (tests/integration/email-robustness.test.ts)',
  '$.tsx': 'the 404 page: /no-such-page',
  '_app.knowledgebase.$kbId._index.tsx': 'redirects to the articles list',
  '_app.knowledgebase.attach-article.tsx': 'a JSON endpoint (tests/integration/knowledge-base-attach.test.ts)',
  '_app.knowledgebase.$kbId.backup-and-restore_.download.tsx': 'a backup download (tests/e2e/knowledge-base/backup-import.spec.ts)',
  '_app.knowledgebase.$kbId.import-export_.export.tsx': 'an export download (tests/e2e/knowledge-base/backup-import.spec.ts)',
  'hc.$kbSlug.sitemap[.]xml.tsx': 'an XML sitemap',
  'hc.$kbSlug.robots[.]txt.tsx': 'a robots.txt',
  'kb-images.$token.tsx': 'an image (tests/integration/knowledge-base-images.test.ts)',
  'hc.$kbSlug.kb-images.$token.tsx': 'an image (tests/integration/knowledge-base-images.test.ts)',
  '_app.knowledgebase.$kbId.images.tsx': "the rich-text editor's JSON upload (tests/integration/knowledge-base-upload.test.ts)",
  'hc.$kbSlug.$.tsx': "the help centre's 404 (the layout's ErrorBoundary, seen at /hc/{kbSlug}/articles/{bad id} in tests)",
  'webhooks.*': 'provider webhooks',
  'survey.email.$accountId.$token.tsx': "a recipient's personal survey link (tests/integration/survey-email.test.ts, tests/e2e/surveys/email.spec.ts)",
  'survey.unsubscribe.$accountId.$token.tsx': "a recipient's unsubscribe link (tests/integration/survey-email.test.ts)",
  'csat.$accountId.$token.tsx': "a customer's rating link (tests/integration/csat.test.ts)",
  'csat.$accountId.$token.unsubscribe.tsx': "a customer's unsubscribe link (tests/integration/csat.test.ts)",
  'review-requests.$accountId.$token.unsubscribe.tsx': "a customer's unsubscribe link (tests/integration/review-requests.test.ts)",
  '_app.inbox.$conversationId_.ai.tsx': 'streams AI help as text into the reply box; without JavaScript the answer is the conversation page (tests/e2e/inbox/ai-help.spec.ts)',
  '_app.inbox.$conversationId_.integrations.tsx': "a connected integration's order or issue action, else a redirect to the conversation (tests/e2e/integrations)",
  '_app.inbox.$conversationId_.tasks.$provider.tsx': 'needs a connected Asana or ClickUp (tests/e2e/integrations/tasks.spec.ts)',
  '_app.settings.integrations.$provider_.callback.tsx': 'the OAuth callback: redirects (tests/integration/integrations.test.ts)',
  '_app.surveys.edit.$surveyId.$type._index.tsx': 'redirects to the design step',
  'survey.logo.$accountId.$uniqueId.tsx': 'an image',
  'csat.logo.$accountId.$id.tsx': 'an image',
  '_app.surveys.$surveyId.lists.$listId.tsx': 'needs an uploaded list file, like the contact import (tests/integration/survey-email.test.ts)',
  'public.widget.survey.$op.tsx': 'the in-app survey API',
  'public.widget-survey[.]js.tsx': 'the in-app survey script',
  '_app.surveys.$surveyId.results.export.tsx': 'a CSV download',
  '_app.analytics.$page.csv.tsx': 'a CSV download',
  '_app.analytics._index.tsx': 'a redirect to the overview',
  'c.o.$token.tsx': "a campaign email's open pixel",
  'public.push-sw[.]js.tsx': 'the web push service worker script',
  'agent-sw[.]js.tsx': 'the agents\' desktop notification service worker script (tests/e2e/settings/desktop-notifications.spec.ts)',
  'public.push.delivered.$token.tsx': "a push notification's delivered beacon (tests/integration/campaigns-push.test.ts)",
  'c.c.$token.tsx': "a campaign email's tracked-link redirect",
  'c.u.$token.tsx': 'needs a sent campaign email (tests/e2e/campaigns/email.spec.ts)',
  // Billing answers 404 with billing off, as this crawl's server has it: tests/e2e/billing/billing.spec.ts runs
  // axe, the console and the 390 px check on these screens against a billing-on server (ADR 074).
  '_app.settings.invoices._index.tsx': 'billing on only (tests/e2e/billing/billing.spec.ts)',
  '_app.settings.invoices.$invoiceId.tsx': 'billing on only (tests/e2e/billing/billing.spec.ts)',
  '_app.settings.invoices.$invoiceId_.pdf.tsx': 'a PDF download, billing on only (tests/e2e/billing/billing.spec.ts)',
  '_app.settings.my-plan_.card.tsx': "the card page's return, redirects (tests/e2e/billing/billing.spec.ts)",
  '_app.forms._index.tsx': 'redirects to /forms/all',
  '_app.forms.responses.$id_.export.tsx': 'a CSV download',
  '_app.forms.responses.$id_.$responseId_.file.$key.tsx': 'a file download (tests/integration/forms.test.ts)',
  'api.v1.*': 'the Developer API, JSON (tests/integration/developer-api.test.ts); its reference page is plain HTML checked there',
};

/** An account with data on every screen, made through the domain functions the app uses. */
export async function seedScreensAccount() {
  const a = await createTestAccount({ firstName: 'Olive' });
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Ari' });
  const email = await createInbox({ ...who, name: 'Support mail', channelType: 'email' });
  const googleInbox = await createGoogleBusinessInbox({ ...who, input: { name: 'Google chats', clientToken: 'client-token-1234' }, publicBase: 'http://localhost' });
  // The email inbox's page with its quarantine table (Download, Retry, Delete).
  await quarantineEmail({ accountId: a.account.id, inboxId: email.id, via: 'smtp', reason: '54000: index row size exceeds btree version 4 maximum 2704', raw: Buffer.from('Subject: x\r\n\r\nx\r\n'), recipients: [], envelopeFrom: null });
  const formInbox = await createInbox({ ...who, name: 'Website', channelType: 'contact_form' });
  const web = await createWebInbox({ ...who, name: 'Chat' });
  const settings = web.settings as Record<string, Record<string, unknown>>;
  await getDb()
    .update(schema.inboxes)
    .set({ settings: { ...settings, chatPage: { ...settings.chatPage, enabled: true } } })
    .where(eq(schema.inboxes.id, web.id));
  const tag = await createTag({ ...who, name: 'Billing', color: 'green' });
  const team = await createTeam({ ...who, name: 'Tier one', description: 'First line', memberIds: [a.owner.id, agent.id] });
  const role = await createRole({ ...who, name: 'Helper', description: 'Reads', permissions: ALL_PERMISSIONS.slice(0, 2) });
  const contact = await createContact({ ...who, input: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' } as never });
  const company = await createCompany({ ...who, input: { name: 'Acme' } as never });
  const segment = await createSegment({ ...who, kind: 'contact', name: 'Everyone', isStatic: false, conditions: {}, memberIds: [] } as never);
  const companySegment = await createSegment({ ...who, kind: 'company', name: 'All firms', isStatic: false, conditions: {}, memberIds: [] } as never);
  const conversations = [];
  for (const [i, status] of ['Refund please', 'Where is my parcel', 'Invoice copy'].entries()) {
    const { conversation } = (await openConversation({
      accountId: a.account.id,
      inboxId: email.id,
      sourceType: 'email',
      subject: status,
      contact: { email: i === 0 ? 'ada@example.test' : `customer${i}@example.test`, name: i === 0 ? 'Ada Lovelace' : `Customer ${i}` },
      message: { kind: 'incoming', text: `Hello, ${status.toLowerCase()}.` },
    } as never)) as { conversation: { id: number } };
    conversations.push(conversation);
  }
  const canned = await createCannedResponse({ ...who, name: 'Thanks', message: 'Thank you for writing.' });
  const campaignTemplate = await createCampaignTemplate({ ...who, name: 'Monthly news', subject: 'News', bodyHtml: '<p>Hello {{firstName}}</p>' });
  const newsInbox = await createEmailInbox({ ...who, name: 'News', email: 'news@example.test', mode: 'forwarding' });
  const emailCampaign = await createEmailCampaign({
    ...who,
    name: 'November news',
    segmentId: (segment as { id: number }).id,
    inboxId: newsInbox.id,
    templateId: campaignTemplate.id,
    subject: 'News',
    trackOpens: true,
    trackClicks: true,
  });
  const messageCampaign = await createMessageCampaign({
    ...who,
    name: 'Pricing help',
    inboxId: web.id,
    senderUserId: who.actorId,
    body: 'Questions about our plans?',
    pages: ['/pricing'],
    pageMatch: 'start',
    delaySeconds: 5,
    visitor: 'any',
    businessHoursOnly: false,
  });
  const pushSegment = await createPushSegment({ ...who, name: 'Pricing visitors', actionOperator: 'AND', actions: [{ key: 'pageUrl', operator: 'contains', value: '/pricing' }], propertyOperator: 'OR', properties: [{ key: 'browser', operator: 'equals', value: 'Chrome' }] });
  const pushCampaign = await createPushCampaign({ ...who, name: 'Winter sale', pushSegmentId: pushSegment.id, title: 'Winter sale', body: '20% off today', url: 'https://shop.example/sale' });
  const template = await createEmailTemplate({ ...who, name: 'Welcome', subject: 'Welcome', body: 'Hello {{firstName}}' } as never);
  const contactForm = await createContactForm({
    accountId: a.account.id,
    actorId: null,
    headerText: 'Contact us',
    subHeaderText: 'We answer within a day',
    submitText: 'Send',
    submitMsg: 'Thanks',
    inboxId: formInbox.id,
    allowPhone: true,
    allowAttachments: false,
    allowCaptcha: false,
  });
  const trustedDomain = await createTrustedDomain({ ...who, domainName: 'Example', domainUrl: 'example.test' });
  const hours = await createBusinessHours({
    ...who,
    name: 'Front desk',
    timezone: 'Europe/Paris',
    allDay: false,
    haveHolidays: false,
    timings: [{ day: 1, startTime: '09:00', endTime: '18:00' }],
    holidays: [],
  } as never);
  const sla = await createSlaPolicy({ ...who, name: 'Silver', inboxIds: [], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: true } as never);
  const routing = await createRoutingRule({ ...who, name: 'Rota', inboxId: email.id, rule: 'round_robin', assignLimit: null, teamId: null, subrules: [] } as never);
  const workflow = await createWorkflow({ ...who, name: 'Triage', description: 'Sorts new mail' } as never);
  const kb = await createKnowledgeBase({ ...who, name: 'Help', detail: 'Answers for customers' });
  const kbWho = { ...who, knowledgeBaseId: kb.id };
  const kbCategory = await createCategory({ ...kbWho, name: 'Billing', description: 'Invoices and payments' });
  const kbArticle = await createArticle({ ...kbWho, title: 'Pay an invoice', categoryId: kbCategory.id, body: '<p>Open Billing and choose Pay.</p>', publish: true });
  await updateArticle({ ...kbWho, id: kbArticle.id, title: 'Pay an invoice', categoryId: kbCategory.id, body: '<p>Open Billing, then choose Pay now.</p>' });
  const kbVersions = (await listVersions({ ...kbWho, articleId: kbArticle.id }))!.versions;
  // Customization (ADR 058): the public screens are checked with a branded header, a logo and header links.
  const logo = await saveKbImage({ ...kbWho, filename: 'logo.png', bytes: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64') });
  await updateKnowledgeBaseSettings({ ...who, id: kb.id, patch: { logoToken: logo.token, brandColor: '#1f6feb', headerTextColor: '#ffffff', headerLinks: [{ label: 'Status', url: 'https://status.example.com' }], showViewCount: true } });
  const surveyFolder = await ensureDefaultFolder({ accountId: a.account.id });
  const webSurvey = await createSurvey({ ...who, name: 'Checkout NPS', folderId: surveyFolder.id, subType: 'nps', channel: 'web' });
  const inAppSurvey = await createSurvey({ ...who, name: 'Onboarding CES', folderId: surveyFolder.id, subType: 'ces', channel: 'in-app' });
  const emailSurvey = await createSurvey({ ...who, name: 'Quarterly CSAT', folderId: surveyFolder.id, subType: 'csat', channel: 'email' });
  // Published surveys with every question type, one answered, for the public pages and the results.
  const resultsSurvey = (await publishedSurvey({ ...who, name: 'Store visit', subType: 'custom', types: ALL_TYPES })).survey;
  const chatSurvey = (await publishedSurvey({ ...who, name: 'Chat follow-up', themeType: 'conversational', types: ['smiley', 'text'] })).survey;
  const firstQuestion = resultsSurvey.questions.find((q) => q.type === 'nps')!;
  await recordAnswers({ accountId: a.account.id, surveyId: resultsSurvey.id, channel: 'web', responseKey: 'screens0123456789', complete: false, answers: { [firstQuestion.id]: 9 }, respondent: { respondentKey: 'screens' } });
  // A bot with every kind of step, so the builder shows each step's form.
  const chatbot = await createChatbot({ ...who, name: 'Front desk' });
  await saveChatbotFlow({ accountId: a.account.id, id: chatbot.id, steps: SAMPLE_FLOW });
  // A published form with one response, a review page with one featured review.
  const form = await createForm({ ...who, name: 'Demo request' });
  await setFormStatus({ ...who, id: form.id, status: 'published' });
  const formResponse = await submitForm({ accountId: a.account.id, form: { ...form, status: 'published' }, answers: { [form.fields[0].key]: 'Ada Lovelace', [form.fields[1].key]: 'ada@example.test', [form.fields[2].key]: 'A demo please' } });
  const reviewPage = await createSource({ ...who, input: { kind: 'parley', name: 'Our page', reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null } });
  const review = await submitPublicReview({ accountId: a.account.id, source: reviewPage, rating: 5, name: 'Ada Lovelace', email: 'ada@example.test', text: 'Quick and kind' });
  await setReviewFeatured({ accountId: a.account.id, actorId: a.owner.id, id: review!.id, isFeatured: true });
  const ids: Record<string, string | number> = {
    form: form.id,
    formCode: form.code,
    formResponse: formResponse.id,
    review: review!.id,
    reviewCode: reviewPage.code,
    chatbot: chatbot.id,
    kb: kb.id,
    webSurvey: webSurvey.id,
    inAppSurvey: inAppSurvey.id,
    emailSurvey: emailSurvey.id,
    account: a.account.id,
    resultsSurvey: resultsSurvey.id,
    resultsSurveyKey: resultsSurvey.uniqueId,
    chatSurveyKey: chatSurvey.uniqueId,
    kbSlug: kb.slug,
    kbCategory: kbCategory.id,
    kbArticle: kbArticle.id,
    kbArticlePath: `${kbArticle.id}-${kbArticle.slug}`,
    kbCategoryPath: `${kbCategory.id}-${kbCategory.slug}`,
    kbVersion: kbVersions[1].id,
    kbVersions: `${kbVersions[1].id}-${kbVersions[0].id}`,
    conversation: conversations[0].id,
    contact: (contact as { id: number }).id,
    company: (company as { id: number }).id,
    segment: (segment as { id: number }).id,
    companySegment: (companySegment as { id: number }).id,
    workflow: (workflow as { id: number }).id,
    agent: agent.id,
    role: (role as { id: number }).id,
    team: (team as { id: number }).id,
    tag: (tag as { id: number }).id,
    canned: (canned as { id: number }).id,
    campaignTemplate: campaignTemplate.id,
    emailCampaign: emailCampaign.id,
    messageCampaign: messageCampaign.id,
    pushSegment: pushSegment.id,
    pushCampaign: pushCampaign.id,
    template: (template as { id: number }).id,
    contactForm: contactForm.id,
    contactFormCode: contactForm.code,
    chatCode: ((await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, web.id)))[0].settings as { chatPage: { code: string } }).chatPage.code,
    emailInbox: email.id,
    googleInbox: googleInbox.id,
    trustedDomain: (trustedDomain as { id: number }).id,
    hours: (hours as { id: number }).id,
    sla: (sla as { id: number }).id,
    routing: (routing as { id: number }).id,
  };
  const meeting = await createMeetingType({ ...who, input: { name: 'Product demo', description: '', slotMinutes: 30, weekdays: 'everyday', dayStart: '09:00', dayEnd: '17:00', timezone: 'UTC', bookingWindowWeeks: 2, bufferMinutes: 0, reminderMinutes: [], hostIds: [a.owner.id], location: '', videoLink: '' } });
  const [firstSlot] = await availableSlots({ accountId: a.account.id, meeting });
  await bookMeeting({ accountId: a.account.id, meeting, start: firstSlot.start, name: 'Ada Lovelace', email: 'ada@example.test', note: '', timezone: 'UTC' });
  Object.assign(ids, { meeting: meeting.id, meetingSlug: meeting.slug });
  const webhook = await createWebhook({ ...who, input: { url: 'https://hooks.example.com/parley', eventTypes: ['conversation_created', 'message_created'] } });
  Object.assign(ids, { webhook: webhook.id });
  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, k: string) => String(ids[k] ?? `{${k}}`));
  return { ...a, ids, fill };
}
