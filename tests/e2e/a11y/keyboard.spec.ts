import { expect, test, type Page } from '@playwright/test';
import { createWorkflow } from '../../../app/models/automation/workflows.server';
import { createContact } from '../../../app/models/crm/contacts.server';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { createTestAccount } from '../../factories';
import { hydrated, signIn, url } from '../helpers';

test.use({ javaScriptEnabled: true });

/**
 * Presses Tab until the focused element matches, checking on every stop that the focus is visible. A small `max`
 * checks the order: the element must come within that many stops.
 */
async function tabTo(page: Page, matches: (el: { tag: string; name: string }) => boolean, max = 80) {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const el = await page.evaluate(() => {
      const a = document.activeElement as HTMLElement | null;
      if (!a || a === document.body) return null;
      const labelled = (a as HTMLInputElement).labels?.[0]?.textContent ?? '';
      const style = getComputedStyle(a);
      return {
        tag: a.tagName.toLowerCase(),
        name: (a.getAttribute('aria-label') || labelled || a.textContent || '').trim().replace(/\s+/g, ' '),
        visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
      };
    });
    if (!el) continue;
    seen.push(`<${el.tag}> ${el.name}`);
    expect(el.visible, `focus is visible on <${el.tag}> "${el.name}"`).toBe(true);
    if (matches(el)) return;
  }
  throw new Error(`not reached with ${max} Tab presses; the stops were: ${seen.join(', ')}`);
}

const named = (tag: string, name: string | RegExp) => (el: { tag: string; name: string }) =>
  el.tag === tag && (typeof name === 'string' ? el.name === name : name.test(el.name));

/** The skip link is the first stop and moves past the navigation to the screen's main content. */
async function skipToMain(page: Page) {
  await page.keyboard.press('Tab');
  await expect(page.locator('.skip-link').first()).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);
}

/** Areas with a long side menu (CRM, Settings) offer a second skip link, first in the main content. */
async function skipAreaMenu(page: Page, label: string) {
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: label })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#area-content$/);
}

test('with the keyboard alone an agent reads, replies to and resolves a conversation', async ({ page }) => {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email' });
  await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Keyboard question',
    contact: { email: 'kay@example.test', name: 'Kay Board' },
    message: { kind: 'incoming', text: 'Can I do this without a mouse?' },
  } as never);
  await signIn(page, a);
  await page.goto(url('/inbox', a.domain));

  // The skip link comes first and moves past the navigation.
  await page.keyboard.press('Tab');
  await expect(page.locator('.skip-link')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);

  // Read: the conversation opens from the list.
  await tabTo(page, (el) => el.tag === 'a' && el.name === 'Keyboard question');
  await page.keyboard.press('Enter');
  await expect(page.getByText('Can I do this without a mouse?')).toBeVisible();

  // Reply.
  await tabTo(page, (el) => el.tag === 'textarea' && /Message/.test(el.name));
  await page.keyboard.type('Yes: every action works from the keyboard.');
  await tabTo(page, (el) => el.tag === 'button' && el.name === 'Send reply');
  await page.keyboard.press('Enter');
  await expect(page.getByText('Yes: every action works from the keyboard.').first()).toBeVisible();

  // Resolve, in the properties panel that saves together (ADR 035).
  await tabTo(page, (el) => el.tag === 'select' && el.name === 'Status');
  await page.keyboard.type('resolved');
  await tabTo(page, (el) => el.tag === 'button' && el.name === 'Save properties');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('toast')).toHaveText('Properties Saved');
  await expect(page.getByLabel('Status', { exact: true })).toHaveValue('resolved');
});

test('Escape closes a menu and gives the focus back to its button', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  const summary = page.locator('[data-testid="profile-menu"] > summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('profile-menu')).toHaveAttribute('open', '');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'My Profile' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('profile-menu')).not.toHaveAttribute('open', '');
  await expect(summary).toBeFocused();
});

test('the contact list with the keyboard alone: search, select, favourite, the bulk delete confirmation', async ({ page }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  await createTag({ ...who, name: 'VIP', color: 'green' });
  const ada = await createContact({ ...who, input: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' } as never });
  await createContact({ ...who, input: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.test' } as never });
  await signIn(page, a);
  await page.goto(url('/customers', a.domain));
  await hydrated(page);
  await skipToMain(page);
  await skipAreaMenu(page, 'Skip the CRM menu');

  // The order follows the page: the header's links, the filters, the selection's actions, then the rows.
  await tabTo(page, named('a', 'New Contact'), 6);
  await tabTo(page, named('input', 'Search contacts'), 2);
  await page.keyboard.type('Ada');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]q=Ada/);
  await expect(page.getByTestId('contacts').getByRole('row')).toHaveCount(2);
  await hydrated(page);

  await tabTo(page, named('select', 'Filter by tag'), 8);
  await tabTo(page, named('select', 'Tag to add'), 4);
  await tabTo(page, named('button', 'Tag selected'), 1);
  await tabTo(page, named('button', 'Delete selected'), 1);
  await tabTo(page, named('input', `Select ${ada.id}`), 12);
  await page.keyboard.press('Space');
  await expect(page.getByLabel(`Select ${ada.id}`)).toBeChecked();
  await tabTo(page, named('button', 'Add to favourites'), 1);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Remove from favourites' })).toBeVisible();

  // The bulk delete asks first; Escape closes the confirmation and leaves the focus on its button.
  await page.getByRole('button', { name: 'Delete selected' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#confirm-contacts-bulk')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.locator('#confirm-contacts-bulk')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Delete selected' })).toBeFocused();
  await expect(page.getByTestId('contacts')).toContainText('Ada Lovelace');
});

test('the workflow builder with the keyboard alone: rows added and removed keep the focus where the work is', async ({ page }) => {
  const a = await createTestAccount();
  const workflow = await createWorkflow({ accountId: a.account.id, actorId: a.owner.id, name: 'Keys', description: '' });
  await signIn(page, a);
  await page.goto(url(`/workflows/builder/${workflow.id}`, a.domain));
  await hydrated(page);
  await skipToMain(page);

  await tabTo(page, named('input', 'Name'), 12);
  await tabTo(page, named('textarea', 'Description'), 1);
  await tabTo(page, named('select', 'Trigger event'), 1);
  await page.keyboard.type('Conversation created');
  await tabTo(page, named('select', 'Conditions must match'), 1);

  // The Add menu opens with Enter, its items are the next stops, Escape closes it and gives the focus back.
  await tabTo(page, named('summary', 'Add condition'), 1);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('add-condition')).toHaveAttribute('open', '');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('add-condition')).not.toHaveAttribute('open', '');
  await expect(page.getByTestId('add-condition').locator('summary')).toBeFocused();

  // Adding a row puts the focus on its first control, not at the top of the page.
  await page.keyboard.press('Enter');
  await tabTo(page, named('button', 'Add condition: Country'), 8);
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Condition 1 operator')).toBeFocused();
  await tabTo(page, named('input', 'Condition 1 value'), 1);
  await page.keyboard.type('France');

  // Removing it puts the focus on the list's Add menu (the list is empty again).
  await tabTo(page, named('button', 'Remove condition 1'), 1);
  await page.keyboard.press('Space');
  await expect(page.getByTestId('condition-0')).toHaveCount(0);
  await expect(page.getByTestId('add-condition').locator('summary')).toBeFocused();

  // An action, typed and saved without the mouse.
  await tabTo(page, named('summary', 'Add action'), 4);
  await page.keyboard.press('Enter');
  await tabTo(page, named('button', 'Add action: Leave a note'), 12);
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Action 1 note')).toBeFocused();
  await page.keyboard.type('Typed with the keyboard');
  await tabTo(page, named('button', 'Save'), 4);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('toast')).toHaveText('Workflow Updated');
  await expect(page.getByLabel('Action 1 note')).toHaveValue('Typed with the keyboard');
});

test('Settings → Automation rules with the keyboard: an added row takes the focus, a removed one hands it to its neighbour', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/automation-rules/new', a.domain));
  await hydrated(page);
  const addCondition = page.getByTestId('add-condition').locator('summary');
  for (const item of ['Contacts', 'Company']) {
    await addCondition.focus();
    await page.keyboard.press('Enter');
    await tabTo(page, named('button', `Add condition: ${item}`), 12);
    await page.keyboard.press('Enter');
    await expect(page.getByTestId(`condition-${item === 'Contacts' ? 0 : 1}`)).toBeVisible();
  }
  // The second row added has the focus, not the top of the page.
  await expect(page.getByLabel('Condition 2 operator')).toBeFocused();
  // Removing the first row gives the focus to the row now in its place.
  await page.getByRole('button', { name: 'Remove condition 1' }).focus();
  await page.keyboard.press('Space');
  await expect(page.getByTestId('condition-1')).toHaveCount(0);
  await expect(page.getByLabel('Condition 1 operator')).toBeFocused();
  // Removing the last one gives it to the list's Add menu.
  await page.getByRole('button', { name: 'Remove condition 1' }).focus();
  await page.keyboard.press('Space');
  await expect(page.getByTestId('condition-0')).toHaveCount(0);
  await expect(addCondition).toBeFocused();
});

test('a settings form with the keyboard alone: edit a tag, and its delete confirmation closes with Escape', async ({ page }) => {
  const a = await createTestAccount();
  const tag = await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'Billing', color: 'green' });
  await signIn(page, a);
  await page.goto(url(`/settings/tags/${tag.id}`, a.domain));
  await hydrated(page);
  await skipToMain(page);
  await skipAreaMenu(page, 'Skip the settings menu');

  await tabTo(page, named('button', 'Delete'), 6);
  await page.keyboard.press('Enter');
  await expect(page.locator(`#confirm-tag-${tag.id}`)).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.locator(`#confirm-tag-${tag.id}`)).toBeHidden();
  await expect(page.getByRole('button', { name: 'Delete', exact: true })).toBeFocused();

  await tabTo(page, named('input', 'Tag Name'), 4);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Invoices');
  await tabTo(page, named('select', 'Colour'), 1);
  await page.keyboard.type('Teal');
  await tabTo(page, named('a', 'Cancel'), 1);
  await tabTo(page, named('button', 'Update'), 1);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('toast')).toHaveText('Tag Updated');
  const row = page.getByTestId('tags').getByRole('row', { name: /Invoices/ });
  await expect(row.getByRole('cell')).toHaveText(['Invoices', 'teal', '0']);
});
