import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createTestAccount } from '../../factories';
import { hydrated, signIn, url } from '../helpers';

test.use({ javaScriptEnabled: true });

test('campaign template block designer (JavaScript on): blocks write the html and the design, kept on save', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/campaigns-templates/new', a.domain));
  await hydrated(page);
  await page.getByLabel('Name').fill('Designed');
  await page.getByLabel('Subject').fill('Our news');
  await page.getByRole('button', { name: 'Design with blocks' }).click();
  const designer = page.getByTestId('block-designer');
  await expect(designer).toBeVisible({ timeout: 30_000 });
  await designer.getByLabel('Heading text').fill('Hello {{firstName}}');
  await designer.getByRole('button', { name: '+ Button' }).click();
  await designer.getByLabel('Button label').fill('Shop now');
  await designer.getByLabel('Link', { exact: true }).fill('https://shop.example.test');
  await designer.getByRole('button', { name: '+ Two columns' }).click();
  await designer.getByLabel('Left column').fill('Left side');
  await expect(page.frameLocator('iframe[title="Designed email preview"]').getByText('Shop now')).toBeVisible();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/settings\/campaigns-templates$/, { timeout: 30_000 });
  const [row] = await getDb().select().from(schema.campaignTemplates).where(eq(schema.campaignTemplates.accountId, a.account.id));
  expect(row.bodyHtml).toContain('Shop now');
  expect(row.bodyHtml).toContain('Hello {{firstName}}');
  expect(JSON.parse(row.textDesign!).blocks.map((b: { type: string }) => b.type)).toEqual(['heading', 'text', 'button', 'columns']);
});
