import { expect, test, type Page } from '@playwright/test';
import { createTestAccount } from '../../factories';
import { startMetaStandIn } from '../../helpers/stand-ins/meta';
import { startXStandIn } from '../../helpers/stand-ins/x';
import { fieldError, signIn, url } from '../helpers';

// The Parley under test calls Graph and X at E2E_META_PORT and E2E_X_PORT (global-setup): saving tries the settings there.
test.describe.configure({ mode: 'serial' });
let meta: Awaited<ReturnType<typeof startMetaStandIn>>;
let x: Awaited<ReturnType<typeof startXStandIn>>;
test.beforeAll(async () => {
  meta = await startMetaStandIn({ pageAccessToken: 'EAAB-secret-page-token', pageId: '1122334455', appSecret: 'meta-app-secret-value', port: Number(process.env.E2E_META_PORT) });
  x = await startXStandIn({ accessToken: 'x-user-token-value', userId: '9000001', port: Number(process.env.E2E_X_PORT) });
});
test.afterAll(async () => {
  await meta.close();
  await x.close();
});

const toast = (page: Page) => page.getByTestId('toast');

test('Facebook and X settings pages without JavaScript: create, the webhook set-up shown, secrets never shown back', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/facebook', a.domain));
  await expect(page).toHaveTitle('Facebook | Settings | Parley');
  await page.getByRole('link', { name: 'Connect Page' }).click();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Inbox Name is required')).toBeVisible();
  await expect(fieldError(page, 'Page Access Token is required')).toBeVisible();
  await page.getByLabel('Inbox Name').fill('Our page');
  await page.getByLabel('Page ID').fill('1122334455');
  await page.getByLabel('Page Access Token').fill('EAAB-revoked-token');
  await page.getByLabel('App Secret').fill('meta-app-secret-value');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  // Facebook is asked before anything is saved: its refusal is shown on the form.
  await expect(fieldError(page, 'Facebook refused the Page Access Token: Invalid OAuth access token - Cannot parse access token')).toBeVisible();
  await page.getByLabel('Page Access Token').fill('EAAB-secret-page-token');
  await page.getByLabel('App Secret').fill('meta-app-secret-value');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Inbox Created');
  await expect(page.getByTestId('webhook-setup')).toContainText('/webhooks/facebook/');
  await expect(page.getByTestId('webhook-setup')).toContainText('Verify token');
  await expect(page.locator('body')).not.toContainText('EAAB-secret-page-token');
  await expect(page.locator('body')).not.toContainText('meta-app-secret-value');

  await page.goto(url('/settings/twitter/new', a.domain));
  await page.getByLabel('Inbox Name').fill('Our X');
  await page.getByLabel('Account User ID').fill('9000001');
  await page.getByLabel('API Key Secret').fill('x-consumer-secret-value');
  await page.getByLabel('User Access Token').fill('x-user-token-value');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Inbox Created');
  await expect(page.getByTestId('webhook-setup')).toContainText('/webhooks/twitter/');
  await expect(page.locator('body')).not.toContainText('x-user-token-value');
  await page.goto(url('/settings/twitter', a.domain));
  await expect(page.getByTestId('twitter-inboxes')).toContainText('Our X');
});

test('Google Business page says plainly that Google shut the product down', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/google-business', a.domain));
  await expect(page.getByTestId('shutdown-notice')).toContainText('Google shut down Google Business Messages on 31 July 2024');
  await page.getByLabel('Inbox Name').fill('GBM archive');
  await page.getByLabel('Client Token').fill('gbm-client-token');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Google Channel Created');
  await expect(page.getByTestId('google-business-inboxes')).toContainText('/webhooks/google-business/');
});
