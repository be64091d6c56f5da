import { expect, test, type Page } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

test.use({ javaScriptEnabled: true });

/** Presses Tab until the focused element matches, checking on every stop that the focus is visible. */
async function tabTo(page: Page, matches: (el: { tag: string; name: string }) => boolean, max = 80) {
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
    expect(el.visible, `focus is visible on <${el.tag}> "${el.name}"`).toBe(true);
    if (matches(el)) return;
  }
  throw new Error('not reached with Tab');
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
