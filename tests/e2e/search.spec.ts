import { expect, test } from '@playwright/test';
import { getDb, schema } from '../../db/client';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';
import { hydrated, signIn, url } from './helpers';

/** An account with people, one conversation, and another account holding a namesake that must not show. */
async function setup() {
  const a = await createTestAccount();
  const other = await createTestAccount();
  const db = getDb();
  await db.insert(schema.contacts).values([
    { accountId: a.account.id, firstName: 'Johnny', lastName: 'Smithfield', email: 'johnny@smithfield.test' },
    { accountId: a.account.id, firstName: 'Bartholomew', lastName: 'Featherstonehaugh', email: 'bart@example.test' },
    ...Array.from({ length: 12 }, (_, i) => ({ accountId: a.account.id, firstName: 'Zorblat', lastName: `Number${i}`, email: `zorblat${i}@example.test` })),
    { accountId: other.account.id, firstName: 'Johnny', lastName: 'Otheraccount', email: 'johnny@other.test' },
  ]);
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email' });
  await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Delivery question',
    contact: { email: 'cara@example.test', name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'My parcel went to Ouagadougou instead' },
  });
  return a;
}

test('without JavaScript: the GET form, grouped results with a misspelt contact and a conversation, and a group page', async ({ page }) => {
  const a = await setup();
  await signIn(page, a);
  await page.getByLabel('Search').fill('jo');
  await page.getByLabel('Search').press('Enter');
  await expect(page).toHaveURL(url('/search?q=jo', a.domain));
  await expect(page.getByText('Type at least 3 characters.')).toBeVisible();

  // A misspelt name still finds the person; the other account's namesake never shows.
  await page.getByLabel('Search').fill('Jonny Smitfield');
  await page.getByLabel('Search').press('Enter');
  const contacts = page.getByTestId('search-group-Contacts');
  await expect(contacts).toContainText('Johnny Smithfield');
  await expect(page.getByText('Otheraccount')).toHaveCount(0);
  await contacts.getByRole('link', { name: 'Johnny Smithfield' }).click();
  await expect(page).toHaveURL(new RegExp(`/customers/\\d+$`));

  // A word of a message finds the conversation.
  await page.getByLabel('Search').fill('ouagadougou');
  await page.getByLabel('Search').press('Enter');
  await expect(page.getByTestId('search-group-Conversations')).toContainText('Delivery question');

  // Long titles are cut to 20 characters; a big group has a "more" link to its own page with the pager.
  await page.getByLabel('Search').fill('featherstone');
  await page.getByLabel('Search').press('Enter');
  await expect(page.getByTestId('search-group-Contacts')).toContainText('Bartholomew Feathers…');
  await page.getByLabel('Search').fill('zorblat');
  await page.getByLabel('Search').press('Enter');
  await expect(page.getByTestId('search-group-Contacts').getByRole('listitem')).toHaveCount(10);
  await page.getByRole('link', { name: 'More Contacts' }).click();
  await expect(page).toHaveURL(url('/search?q=zorblat&group=Contacts', a.domain));
  await expect(page.getByTestId('search-group-Contacts').getByRole('listitem')).toHaveCount(12);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('typing opens the dropdown from 3 characters, titles cut to 20', async ({ page }) => {
    const a = await setup();
    await signIn(page, a);
    await hydrated(page);
    await page.getByLabel('Search').fill('fe');
    await page.waitForTimeout(700);
    await expect(page.getByTestId('search-dropdown')).toHaveCount(0);
    await page.getByLabel('Search').fill('featherstone');
    const dropdown = page.getByTestId('search-dropdown');
    await expect(dropdown).toContainText('Contacts');
    await expect(dropdown.getByRole('link', { name: 'Bartholomew Feathers…' })).toHaveAttribute('title', 'Bartholomew Featherstonehaugh');
    await expect(page).toHaveURL(url('/home', a.domain));
    await page.getByLabel('Search').fill('jonh smithfeild');
    await expect(dropdown.getByRole('link', { name: 'Johnny Smithfield' })).toBeVisible();
    // Five per group in the dropdown, and the way to the group's full page.
    await page.getByLabel('Search').fill('zorblat');
    await expect(dropdown.getByRole('link', { name: /^Zorblat/ })).toHaveCount(5);
    await dropdown.getByRole('link', { name: 'More contacts…' }).click();
    await expect(page).toHaveURL(url('/search?q=zorblat&group=Contacts', a.domain));
    await expect(page.getByTestId('search-group-Contacts').getByRole('listitem')).toHaveCount(12);
  });
});
