import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { FormBuilderSchema } from '../app/models/forms/schemas';
import { completeFormSubmission, createForm, saveForm, setFormStatus, submitForm } from '../app/models/forms/forms.server';
import { REVIEW_REQUEST_DEFAULTS } from '../app/models/reviews/constants';
import { createSource, replyToReview, setReviewFeatured, submitPublicReview } from '../app/models/reviews/reviews.server';
import { createWorkflow, setWorkflowActive, updateWorkflow } from '../app/models/automation/workflows.server';
import { processEvent } from '../engine/events';
import { getDb, schema } from './client';

const noApi = { reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null };

/** The demo's reviews (its own page and a Facebook profile link) and forms (a published demo request with responses, a draft). */
export async function seedDemoReviewsAndForms(opts: { accountId: number; ownerId: number; now?: Date }) {
  const now = (opts.now ?? new Date()).getTime();
  const who = { accountId: opts.accountId, actorId: opts.ownerId };
  // Reviewers and form respondents are contacts the demo already has, so the CRM's figures stay as they are.
  const known = await getDb()
    .select({ email: schema.contacts.email, firstName: schema.contacts.firstName, lastName: schema.contacts.lastName })
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, opts.accountId), isNotNull(schema.contacts.email)))
    .orderBy(asc(schema.contacts.id))
    .limit(10);
  const firms = await getDb().select({ name: schema.companies.name }).from(schema.companies).where(eq(schema.companies.accountId, opts.accountId)).orderBy(asc(schema.companies.id)).limit(5);
  const person = (i: number) => (known[i] ? { name: `${known[i].firstName} ${known[i].lastName}`.trim(), email: known[i].email } : null);
  const page = await createSource({ ...who, input: { kind: 'parley', name: 'Our review page', ...noApi } });
  await createSource({ ...who, input: { kind: 'facebook', name: 'Facebook', ...noApi, reviewUrl: 'https://www.facebook.com/acmesupport/reviews' } });
  // Review requests (ADR 086): asked after a rating of 4 or 5, at most every 90 days, linking to the review page.
  await getDb()
    .insert(schema.reviewRequestSettings)
    .values({ accountId: opts.accountId, ...REVIEW_REQUEST_DEFAULTS, isEnabled: true, senderName: 'Acme Support', sourceId: page.id, minCsat: 4 })
    .onConflictDoNothing();
  const reviews: [number, string, string | null, string, number][] = [
    [5, 'Hannah Price', 'hannah.price@example.com', 'Answered within ten minutes and fixed my billing problem on the spot.', 1],
    [4, 'Tom Becker', 'tom.becker@example.com', 'Friendly and helpful. The help centre article solved most of it.', 2],
    [5, 'Priya Nair', null, 'Best support team I have dealt with this year.', 3],
    [2, 'Leo Martins', 'leo.martins@example.com', 'Took two days to get a first reply to my refund request.', 5],
    [3, 'Grace Kim', null, 'Fine in the end, but I had to explain my problem twice.', 8],
    [5, 'Omar Haddad', 'omar.haddad@example.com', 'They called me back the same day. Great service.', 12],
    [1, 'Nina Vogel', null, 'My parcel is still missing and nobody tells me why.', 15],
    [4, 'Sam Ortiz', 'sam.ortiz@example.com', '', 20],
  ];
  // A workflow hands the low reviews to the team (ADR 149): each gets a conversation, assigned, tagged and noted.
  const [feedback] = await getDb()
    .select({ id: schema.tags.id })
    .from(schema.tags)
    .where(and(eq(schema.tags.accountId, opts.accountId), eq(schema.tags.name, 'feedback')));
  const lowReviews = await createWorkflow({ ...who, name: 'Answer low reviews', description: 'A review under 3 stars goes to the owner with a note, as a conversation.' });
  await updateWorkflow({
    ...who,
    id: lowReviews.id,
    input: {
      name: 'Answer low reviews',
      description: 'A review under 3 stars goes to the owner with a note, as a conversation.',
      event: 'review_received',
      conditionOperator: 'and',
      conditions: [{ field: 'rating', op: 'below', value: '3' }],
      filters: [],
      actions: [
        { type: 'assign_user', userId: opts.ownerId },
        ...(feedback ? [{ type: 'assign_tag' as const, tagIds: [feedback.id] }] : []),
        { type: 'leave_note', note: 'Answer this review today: apologise and offer a call.' },
      ],
    },
  });
  await setWorkflowActive({ ...who, id: lowReviews.id, isActive: true });
  const reviewEvents: number[] = [];
  for (const [i, [rating, fallbackName, email, text, daysAgo]] of reviews.entries()) {
    const p = email ? person(i) : null;
    const name = p?.name || fallbackName;
    const review = await submitPublicReview({ accountId: opts.accountId, source: page, rating, name, email: p?.email ?? null, text });
    if (!review) continue;
    const [event] = await getDb()
      .select({ id: schema.domainEvents.id })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, opts.accountId), eq(schema.domainEvents.type, 'review_received'), eq(schema.domainEvents.subjectId, String(review.id))));
    if (event) reviewEvents.push(event.id);
    await getDb()
      .update(schema.reviews)
      .set({ reviewedAt: new Date(now - daysAgo * 86_400_000), createdAt: new Date(now - daysAgo * 86_400_000) })
      .where(and(eq(schema.reviews.accountId, opts.accountId), eq(schema.reviews.id, review.id)));
    if (rating === 5) await setReviewFeatured({ ...who, id: review.id, isFeatured: true });
    if (rating <= 2) await replyToReview({ ...who, id: review.id, reply: `Sorry ${name.split(' ')[0]}, that is not the service we want to give. We have written to you to put it right.` });
  }

  // The engine's own path, now rather than when the demo's engine first starts (it then finds them done).
  for (const id of reviewEvents) await processEvent(id);

  const demo = await createForm({ ...who, name: 'Demo request' });
  const [nameField, emailField, messageField] = demo.fields;
  const fields = [
    nameField,
    emailField,
    { key: 'f_company0', type: 'company', label: 'Company', required: true },
    { key: 'f_jobtitle', type: 'job_title', label: 'Job title', required: false },
    { key: 'f_country0', type: 'country', label: 'Country', required: false },
    { key: 'f_teamsize', type: 'choice', label: 'Team size', required: true, options: ['1-5', '6-20', '21-100', 'More than 100'] },
    { ...messageField, label: 'What would you like to see?' },
    { key: 'f_consent0', type: 'consent', label: 'You may contact me about this request', required: true },
  ];
  const input = FormBuilderSchema.parse({
    name: 'Demo request',
    headerText: 'Book a demo',
    description: 'Tell us a little about your team and we will show you Parley in 30 minutes.',
    submitText: 'Request a demo',
    brandColour: 'teal',
    thankYouMessage: 'Thank you! We will email you within one working day to find a time.',
    captcha: 'on',
    fields: [],
  });
  await saveForm({ ...who, id: demo.id, input, fields });
  const published = (await setFormStatus({ ...who, id: demo.id, status: 'published' }))!;
  const people: [string, string, string, string, string, string][] = [
    ['Julia Stone', 'julia.stone@northwind.example', 'Northwind', 'Head of Support', 'GB', '21-100'],
    ['Marco Rossi', 'marco.rossi@fabrikam.example', 'Fabrikam', 'COO', 'IT', '6-20'],
    ['Aiko Tanaka', 'aiko.tanaka@contoso.example', 'Contoso', 'Support Lead', 'JP', 'More than 100'],
    ['Ben Walker', 'ben.walker@tailspin.example', 'Tailspin Toys', 'Founder', 'US', '1-5'],
    ['Sofia Lindqvist', 'sofia.lindqvist@adatum.example', 'Adatum', 'Customer Success Manager', 'SE', '21-100'],
  ];
  for (const [i, [fallbackName, , fallbackCompany, title, country, size]] of people.entries()) {
    const p = person(5 + i);
    if (!p) break;
    const [name, email, company] = [p.name || fallbackName, p.email!, firms[i]?.name ?? fallbackCompany];
    const response = await submitForm({
      accountId: opts.accountId,
      form: published,
      answers: { [nameField.key]: name, [emailField.key]: email, f_company0: company, f_jobtitle: title, f_country0: country, f_teamsize: size, [messageField.key]: 'Shared inbox and the help centre, mostly.', f_consent0: 'on' },
    });
    // Filed now, as the engine would (ADR 112): the demo's responses have their contacts whether or not it runs.
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, opts.accountId), eq(schema.domainEvents.type, 'form_submitted'), eq(schema.domainEvents.subjectId, String(response.id))));
    await completeFormSubmission(event);
    await getDb()
      .update(schema.formResponses)
      .set({ createdAt: new Date(now - (i * 2 + 1) * 86_400_000) })
      .where(and(eq(schema.formResponses.accountId, opts.accountId), eq(schema.formResponses.id, response.id)));
  }
  await createForm({ ...who, name: 'Newsletter sign-up' });
}
