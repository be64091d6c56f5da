import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createSource } from '../../app/models/reviews/reviews.server';
import { drainEvents, lastEventId } from '../helpers/engine';
import { customerConversation, mailAccount, resolveAndDrain, useMailSuite } from '../helpers/mail-suite';

const suite = useMailSuite();

const noApi = { reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null };

async function setup() {
  const a = await mailAccount();
  const page = await createSource({ ...a.who, input: { kind: 'parley', name: 'Our page', ...noApi } });
  return { ...a, page };
}

async function resolvedConversation(s: Awaited<ReturnType<typeof setup>>, email: string) {
  const id = await customerConversation(s, { email });
  await resolveAndDrain(s, id);
  return id;
}

describe('review-request emails', () => {
  it('setup refuses bad input; a resolved conversation asks once per contact per period; one-click unsubscribe stops them; another account sees nothing', async () => {
    const s = await setup();
    const other = await setup();
    const screen = await suite.app.request('/settings/email-setup', { domain: s.domain, cookie: s.cookie });
    expect(screen.status).toBe(200);
    expect(screen.text).toContain(s.sender);
    expect(screen.text).toContain('Our page');
    expect(screen.text).not.toContain(other.sender);

    const refused = await suite.app.request('/settings/email-setup', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'save', isEnabled: 'on', subject: 'Review us', body: 'No link here', periodDays: '0', senderEmail: s.sender },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('The body must contain {{review_link}}');
    expect(refused.text).toContain('Period must be a whole number of days from 1 to 365');
    expect(refused.text).toContain('Choose where customers leave their review');
    expect(refused.text).toContain('No link here');
    // Another account's sender or source is refused, and nothing is saved.
    const foreign = await suite.app.request('/settings/email-setup', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'save', isEnabled: 'on', subject: 'Review us', body: 'Go: {{review_link}}', periodDays: '30', senderEmail: other.sender, sourceId: String(other.page.id) },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('Choose one of your verified sender addresses');
    expect(await getDb().select().from(schema.reviewRequestSettings).where(eq(schema.reviewRequestSettings.accountId, s.account.id))).toHaveLength(0);

    const saved = await suite.app.request('/settings/email-setup', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'save', isEnabled: 'on', senderName: 'Acme Support', subject: 'Thanks {{name}}, a review for {{company}}?', body: 'Hi {{name}},\n\nPlease review us: {{review_link}}', periodDays: '30', senderEmail: s.sender, sourceId: String(s.page.id) },
    });
    expect(saved.status).toBe(302);

    await resolvedConversation(s, 'cleo@example.test');
    expect(suite.received).toHaveLength(1);
    const mail = suite.received[0].mail;
    expect(mail.from?.value[0]).toMatchObject({ address: s.sender, name: 'Acme Support' });
    expect(mail.subject?.toLowerCase()).toBe(`thanks cleo, a review for ${s.account.name}?`.toLowerCase());
    expect(String(mail.text)).toContain(`/r/${s.page.code}`);
    const unsubscribe = new URL(/List-Unsubscribe:\s+<([^>]+)>/.exec(suite.received[0].raw)![1]);
    expect(suite.received[0].raw).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click/);

    // The same contact again within the period: not asked twice. Another contact is asked.
    await resolvedConversation(s, 'cleo@example.test');
    expect(suite.received).toHaveLength(1);
    await resolvedConversation(s, 'dan@example.test');
    expect(suite.received).toHaveLength(2);
    // After the period the contact is asked again.
    await getDb().update(schema.reviewRequests).set({ sentAt: new Date(Date.now() - 31 * 86_400_000) }).where(eq(schema.reviewRequests.accountId, s.account.id));
    await resolvedConversation(s, 'cleo@example.test');
    expect(suite.received).toHaveLength(3);

    // One-click unsubscribe (RFC 8058: a POST with no intent); the other account's host does not know the link.
    expect((await suite.app.request(unsubscribe.pathname, { domain: other.domain })).status).toBe(404);
    const confirm = await suite.app.request(unsubscribe.pathname, { domain: s.domain });
    expect(confirm.text).toContain('Stop review requests to cleo@example.test?');
    const oneClick = await suite.app.request(unsubscribe.pathname, { domain: s.domain, form: { 'List-Unsubscribe': 'One-Click' }, origin: null });
    expect(oneClick.status).toBe(200);
    expect(oneClick.text).toContain('will not receive review requests from us again');
    const [cleo] = await getDb().select().from(schema.contacts).where(and(eq(schema.contacts.accountId, s.account.id), eq(schema.contacts.email, 'cleo@example.test')));
    expect(await getDb().select().from(schema.reviewRequestOptOuts).where(eq(schema.reviewRequestOptOuts.contactId, cleo.id))).toHaveLength(1);
    expect(await getDb().select().from(schema.emailSuppressions).where(and(eq(schema.emailSuppressions.accountId, s.account.id), eq(schema.emailSuppressions.email, 'cleo@example.test')))).toHaveLength(1);
    await getDb().update(schema.reviewRequests).set({ sentAt: new Date(Date.now() - 60 * 86_400_000) }).where(eq(schema.reviewRequests.accountId, s.account.id));
    suite.received.length = 0;
    await resolvedConversation(s, 'cleo@example.test');
    expect(suite.received).toHaveLength(0);

    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'review_request_sent')));
    expect(events).toHaveLength(3);
    // The other account never sent anything and sees no request.
    expect(await getDb().select().from(schema.reviewRequests).where(eq(schema.reviewRequests.accountId, other.account.id))).toHaveLength(0);
    const otherScreen = await suite.app.request('/settings/email-setup', { domain: other.domain, cookie: other.cookie });
    expect(otherScreen.text).not.toContain('cleo@example.test');
  });

  it('with a CSAT condition: asked only after a rating at or above it, not on the resolve itself', async () => {
    const s = await setup();
    await getDb()
      .insert(schema.csatSurveys)
      .values({ accountId: s.account.id, kind: 'email', inboxIds: [s.mail.id], subject: 'Rate us' } as never);
    const saved = await suite.app.request('/settings/email-setup', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'save', isEnabled: 'on', subject: 'Review us', body: 'Please: {{review_link}}', periodDays: '30', senderEmail: s.sender, sourceId: String(s.page.id), minCsat: '4' },
    });
    expect(saved.status).toBe(302);

    const low = await resolvedConversation(s, 'low@example.test');
    const high = await resolvedConversation(s, 'high@example.test');
    // Only the two rating emails so far.
    expect(suite.received.map((m) => m.mail.subject)).toEqual(['Rate us', 'Rate us']);
    const rate = async (conversationId: number, rating: number) => {
      const [row] = await getDb().select().from(schema.csatRatings).where(eq(schema.csatRatings.conversationId, conversationId));
      const after = await lastEventId(s.account.id);
      expect((await suite.app.request(`/csat/${s.account.id}/${row.token}?r=${rating}`, { domain: s.domain })).status).toBe(302);
      await drainEvents(s.account.id, { after });
    };
    suite.received.length = 0;
    await rate(low, 2);
    expect(suite.received).toHaveLength(0);
    await rate(high, 5);
    expect(suite.received).toHaveLength(1);
    expect(suite.received[0].to).toEqual(['high@example.test']);
    expect(suite.received[0].mail.subject).toBe('Review us');
  });
});
