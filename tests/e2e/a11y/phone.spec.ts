import { expect, test, type Page } from '@playwright/test';
import { createContact } from '../../../app/models/crm/contacts.server';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

// JavaScript is off (the default): the phone layout is CSS and <details> alone.

async function seed() {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support with a rather long inbox name', channelType: 'email' });
  const opened = (await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'A subject long enough to wrap on a narrow phone screen without pushing anything sideways',
    contact: { email: 'very.long.address.of.a.customer@example-company-with-a-long-name.test', name: 'Maximiliane Longname-Example' },
    message: { kind: 'incoming', text: 'Averyveryverylongwordwithoutanyspacesthatwouldotherwisepushthelayoutsidewaysonaphone and more text.' },
  } as never)) as { conversation: { id: number } };
  await createContact({ accountId: a.account.id, actorId: a.owner.id, input: { firstName: 'Maximiliane', lastName: 'Longname', email: 'maxi@example.test' } as never });
  return { a, conversationId: opened.conversation.id };
}

async function noHorizontalScroll(page: Page) {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(widths.scroll, `page is ${widths.scroll} px wide in a ${widths.client} px window`).toBeLessThanOrEqual(widths.client);
  // Nor does a part of it (a table in a scrolling box is horizontal scrolling too).
  const scrollers = await page.evaluate(() =>
    [...document.querySelectorAll('main *')]
      .filter((el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'TEXTAREA')
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
  );
  expect(scrollers).toEqual([]);
}

test.describe('at 390 × 844', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the navigation folds into a menu, the inbox is cards with filters folded, properties follow the thread', async ({ page }) => {
    const { a, conversationId } = await seed();
    await signIn(page, a);
    await page.goto(url('/inbox', a.domain));
    // The top navigation is a closed menu that opens without JavaScript.
    const inboxLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' });
    await expect(inboxLink).toBeHidden();
    await page.locator('.nav-fold > summary').click();
    await expect(inboxLink).toBeVisible();
    await page.locator('.nav-fold > summary').click();
    // Filters are folded away; the first conversation is on the first screen, as a card.
    await expect(page.getByLabel('Filters').locator('summary')).toBeVisible();
    await expect(page.getByLabel('Filters').getByRole('link', { name: 'All inboxes' })).toBeHidden();
    const row = page.getByTestId(`conversation-${conversationId}`);
    await expect(row).toBeInViewport();
    expect(await row.evaluate((el) => getComputedStyle(el).display)).toBe('block');
    await noHorizontalScroll(page);
    // The conversation: the properties come after the thread.
    await page.goto(url(`/inbox/${conversationId}`, a.domain));
    const thread = await page.getByLabel('Conversation', { exact: true }).boundingBox();
    const details = await page.getByLabel('Details', { exact: true }).boundingBox();
    expect(details!.y).toBeGreaterThan(thread!.y + thread!.height - 1);
    await noHorizontalScroll(page);
  });
});

test.describe('reflow at 320 px (and 640 px at 200% zoom)', () => {
  for (const viewport of [{ width: 320, height: 640 }, { width: 640, height: 480, zoom: 2 }]) {
    test(`inbox list, conversation and contact list do not scroll sideways at ${viewport.width} px${viewport.zoom ? ' × 2' : ''}`, async ({ browser }) => {
      const { a, conversationId } = await seed();
      const context = await browser.newContext({ viewport: { width: viewport.zoom ? 320 : viewport.width, height: 640 }, deviceScaleFactor: viewport.zoom ?? 1, javaScriptEnabled: false });
      const page = await context.newPage();
      await signIn(page, a);
      for (const path of ['/inbox', `/inbox/${conversationId}`, '/customers']) {
        await page.goto(url(path, a.domain));
        await noHorizontalScroll(page);
      }
      await context.close();
    });
  }
});
