import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createSource } from '../../../app/models/reviews/reviews.server';
import { createTestAccount } from '../../factories';
import { fieldError, latestMail, signIn, url } from '../helpers';

/** Review-request emails with JavaScript off: the setup screen, then a resolved conversation sends the email (ADR 086). */
test.use({ javaScriptEnabled: false });

test('Settings → Reviews → Email setup refuses a body without the link, saves, and resolving a conversation sends the review request', async ({ page }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const inbox = await createInbox({ ...who, name: 'Support mail', channelType: 'email' });
  const sender = `support@${a.domain}.example.test`;
  await getDb().update(schema.inboxes).set({ email: sender, forwardingVerifiedAt: new Date() }).where(eq(schema.inboxes.id, inbox.id));
  const source = await createSource({ ...who, input: { kind: 'parley', name: 'Our page', reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null } });

  await signIn(page, a);
  await page.goto(url('/settings/email-setup', a.domain));
  await page.getByLabel('Send review-request emails').check();
  await page.getByLabel('Send customers to').selectOption({ label: 'Our page (Parley review page)' });
  await page.getByLabel('Sender address (verified)').selectOption(sender);
  await page.getByLabel('Body').fill('Hi {{name}}, please review us.');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'The body must contain {{review_link}}')).toBeVisible();
  // What was typed is shown back.
  await expect(page.getByLabel('Body')).toHaveValue('Hi {{name}}, please review us.');
  await page.getByLabel('Body').fill('Hi {{name}}, please review us: {{review_link}}');
  await page.getByLabel('Subject').fill('A minute for {{company}}?');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Email Setup Saved')).toBeVisible();
  await expect(page.getByLabel('Send review-request emails')).toBeChecked();

  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Refund please', contact: { email: `rhea@${a.domain}.test`, name: 'Rhea Customer' }, message: { kind: 'incoming', text: 'Hello' } });
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByRole('button', { name: 'Resolve', exact: true }).click();
  // The engine (inline in this server) sends it.
  const mail = await latestMail(`rhea@${a.domain}.test`, { subject: /A minute for/, timeoutMs: 30_000 });
  expect(mail.text).toContain(`/r/${source.code}`);
  expect(mail.text).toContain('Hi Rhea Customer');
  await page.goto(url('/settings/email-setup', a.domain));
  await expect(page.getByTestId('recent-requests')).toContainText(`rhea@${a.domain}.test`);
});
