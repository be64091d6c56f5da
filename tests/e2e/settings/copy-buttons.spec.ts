import { expect, test } from '@playwright/test';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createTestAccount } from '../../factories';
import { hydrated, signIn, url } from '../helpers';

/** Section 8: copying shows "Copied", a failure "error occurred"; without JavaScript the value is selectable text. */
test('without JavaScript the snippet is selectable text and no copy button is offered', async ({ page }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat' });
  await signIn(page, a);
  await page.goto(url('/settings/chat-messenger', a.domain));
  await expect(page.getByLabel('Snippet')).toHaveValue(new RegExp(`data-inbox="${inbox.id}"`));
  await expect(page.getByTestId('copy-button')).toHaveCount(0);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('the copy button copies the snippet and says Copied; a refused clipboard says error occurred', async ({ page, context }) => {
    const a = await createTestAccount();
    await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url('', a.domain) });
    await signIn(page, a);
    await page.goto(url('/settings/chat-messenger', a.domain));
    await hydrated(page);
    const snippet = await page.getByLabel('Snippet').inputValue();
    await page.getByRole('button', { name: 'Copy code' }).click();
    await expect(page.getByTestId('copy-button')).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    await expect(page.getByTestId('copy-button')).toHaveText('Copy code');

    // A browser that refuses the clipboard: the button says so instead of pretending.
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) }, configurable: true });
    });
    await page.reload();
    await hydrated(page);
    await page.getByRole('button', { name: 'Copy code' }).click();
    await expect(page.getByTestId('copy-button')).toHaveText('error occurred');
  });
});
