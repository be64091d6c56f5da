import { expect, test, type Page } from '@playwright/test';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { startVisitor } from '../../../app/models/channels/widget.server';
import { subscribePush } from '../../../app/models/campaigns/push.server';
import { createTestAccount } from '../../factories';
import { startPushService } from '../../helpers/stand-ins/push-service';
import { signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');
const error = (page: Page, text: string) => page.locator('.field-error', { hasText: text });
const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * Web push without JavaScript (ADR 083): a push segment with the specification's messages, then a push campaign to it,
 * sent now; the local push service checks the VAPID signature and decrypts what it receives.
 */
test('a push segment with its validation messages, and a push campaign to it received by the push service (no JavaScript)', async ({ page }) => {
  const push = await startPushService();
  try {
    const a = await createTestAccount();
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Site' });
    const subscribed = [];
    for (const pageUrl of ['https://shop.example/pricing', 'https://shop.example/careers']) {
      const { visitor } = await startVisitor({ inbox });
      const sub = push.subscribe();
      await subscribePush({ visitor, input: { ...sub.json, url: pageUrl }, userAgent: CHROME_WIN });
      subscribed.push(sub);
    }
    await signIn(page, a);

    await page.goto(url('/campaigns/push-segment', a.domain));
    await expect(page.getByTestId('push-subscribers')).toContainText('2 visitors have subscribed');
    await page.getByRole('link', { name: 'Create Push Segment' }).click();
    const create = page.getByRole('button', { name: 'Create', exact: true });
    await create.click();
    await expect(error(page, 'Name is not allowed to be empty')).toBeVisible();
    await expect(error(page, 'Page URL is required')).toBeVisible();

    // Two more actions and a property, each given its key and its choices (the "Show choices" button, no script).
    await page.getByRole('button', { name: 'Add action' }).click();
    const action2 = page.getByRole('group', { name: 'Actions condition 2' });
    await action2.getByLabel('Field').selectOption('dayOfWeek');
    await page.getByRole('button', { name: 'Add action' }).click();
    const action3 = page.getByRole('group', { name: 'Actions condition 3' });
    await action3.getByLabel('Field').selectOption('hourOfDay');
    await page.getByRole('button', { name: 'Add property' }).click();
    await page.getByRole('group', { name: 'Properties condition 1' }).getByLabel('Field').selectOption('os');
    await page.getByRole('button', { name: 'Show choices for properties condition 1' }).click();
    await expect(page.getByRole('group', { name: 'Properties condition 1' }).getByLabel('Value').locator('option', { hasText: 'Windows 10.0' })).toHaveCount(1);
    const action1 = page.getByRole('group', { name: 'Actions condition 1' });
    await action1.getByLabel('Operator').selectOption('equals');
    await action1.getByLabel('Value').fill('pricing');
    await page.getByLabel('Name').fill('Pricing visitors');
    await create.click();
    await expect(error(page, 'Enter a valid Page URL')).toBeVisible();
    await expect(error(page, 'Day Of Week is not allowed to be empty')).toBeVisible();
    await expect(error(page, 'Hour Of Day is not allowed to be empty')).toBeVisible();
    await expect(page.getByRole('group', { name: 'Properties condition 1' }).locator('.field-error', { hasText: 'This field is required' })).toBeVisible();
    await expect(page.getByLabel('Name')).toHaveValue('Pricing visitors');

    // Changing a condition's key clears its value.
    await page.getByRole('group', { name: 'Properties condition 1' }).getByLabel('Value').selectOption('Windows 10.0');
    await page.getByRole('group', { name: 'Properties condition 1' }).getByLabel('Field').selectOption('browser');
    await page.getByRole('button', { name: 'Show choices for properties condition 1' }).click();
    await expect(page.getByRole('group', { name: 'Properties condition 1' }).getByLabel('Value')).toHaveValue('');

    // Keep one action: the page URL contains /pricing.
    await page.getByRole('button', { name: 'Remove actions condition 3' }).click();
    await page.getByRole('button', { name: 'Remove actions condition 2' }).click();
    await page.getByRole('button', { name: 'Remove properties condition 1' }).click();
    await page.getByRole('group', { name: 'Actions condition 1' }).getByLabel('Operator').selectOption('contains');
    await page.getByRole('group', { name: 'Actions condition 1' }).getByLabel('Value').fill('/pricing');
    await create.click();
    await expect(toast(page)).toHaveText('Push Segment Created');
    await expect(page.getByTestId('push-segment-matches')).toHaveText('Matches 1 subscriber now.');

    // The push campaign.
    await page.goto(url('/campaigns', a.domain));
    await page.getByText('Create Campaign').click();
    await page.getByTestId('new-push').click();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(error(page, 'Name is not allowed to be empty')).toBeVisible();
    await expect(error(page, 'Push segment must be specified')).toBeVisible();
    await page.getByLabel('Name').fill('Winter sale');
    await page.getByLabel('Push segment').selectOption({ label: 'Pricing visitors' });
    await page.getByLabel('Title').fill('Winter sale');
    await page.getByLabel('Message').fill('20% off all plans today');
    await page.getByLabel('Link').fill('https://shop.example/sale');
    await page.getByLabel('Icon (optional)').fill('http://shop.example/icon.png');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(error(page, 'The icon must be an https URL')).toBeVisible();
    await expect(page.getByLabel('Title')).toHaveValue('Winter sale');
    await page.getByLabel('Icon (optional)').fill('https://shop.example/icon.png');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(toast(page)).toHaveText('Campaign Created');
    await page.getByRole('button', { name: 'Send or schedule' }).click();
    await expect(toast(page)).toHaveText('Campaign Sending');
    await expect.poll(() => push.received.length, { timeout: 30_000 }).toBe(1);
    expect(push.refused).toEqual([]);
    expect(push.received[0].subscription).toBe(subscribed[0].id);
    expect(push.received[0].payload).toMatchObject({ title: 'Winter sale', body: '20% off all plans today', icon: 'https://shop.example/icon.png' });
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId('campaign-status')).toHaveText('Sent', { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByTestId('figure-sent')).toContainText('1');
  } finally {
    await push.close();
  }
});
