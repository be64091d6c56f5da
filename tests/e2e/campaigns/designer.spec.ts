import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createEmailCampaign } from '../../../app/models/campaigns/campaigns.server';
import { renderDesign, type TextDesign } from '../../../app/models/campaigns/design';
import { createSegment } from '../../../app/models/crm/segments.server';
import { createEmailInbox } from '../../../app/models/email/email-inboxes.server';
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
  // The sandboxed preview is its own (opaque) frame: Chromium may leave an off-screen one unlaid-out, so bring it into view.
  await page.locator('iframe[title="Designed email preview"]').scrollIntoViewIfNeeded();
  await expect(page.frameLocator('iframe[title="Designed email preview"]').getByText('Shop now')).toBeVisible();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/settings\/campaigns-templates$/, { timeout: 30_000 });
  const [row] = await getDb().select().from(schema.campaignTemplates).where(eq(schema.campaignTemplates.accountId, a.account.id));
  expect(row.bodyHtml).toContain('Shop now');
  expect(row.bodyHtml).toContain('Hello {{firstName}}');
  expect(JSON.parse(row.textDesign!).blocks.map((b: { type: string }) => b.type)).toEqual(['heading', 'text', 'button', 'columns']);
});

/** An email campaign with a block-designed body (ADR 095): its own blocks, as a template keeps them. */
async function designedCampaign() {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const inbox = await createEmailInbox({ accountId, actorId: a.owner.id, name: 'Acme News', email: `news@${a.domain}.test`, mode: 'forwarding' });
  const segment = await createSegment({ accountId, actorId: a.owner.id, kind: 'contact', name: 'Everyone', isStatic: false, conditions: {}, memberIds: [] });
  const design: TextDesign = { version: 1, blocks: [{ type: 'heading', text: 'Autumn sale' }, { type: 'text', text: 'Ten days only.' }] };
  const campaign = await createEmailCampaign({
    accountId,
    actorId: a.owner.id,
    name: 'Autumn',
    segmentId: segment.id,
    inboxId: inbox.id,
    subject: 'Sale',
    bodyHtml: renderDesign(design),
    textDesign: JSON.stringify(design),
    trackOpens: true,
    trackClicks: true,
  });
  return { a, campaign };
}

const storedDesign = async (id: number) => {
  const [row] = await getDb().select().from(schema.campaigns).where(eq(schema.campaigns.id, id));
  return row.textDesign ? (JSON.parse(row.textDesign) as TextDesign) : null;
};

test('email campaign block designer (JavaScript on): the campaign reopens with its own blocks and saves them', async ({ page }) => {
  const { a, campaign } = await designedCampaign();
  await signIn(page, a);
  await page.goto(url(`/campaigns/email/${campaign.id}`, a.domain));
  await hydrated(page);
  await expect(page.getByText('This body was made with blocks')).toBeVisible();
  await page.getByRole('button', { name: 'Design with blocks' }).click();
  const designer = page.getByTestId('block-designer');
  await expect(designer.getByLabel('Heading text')).toHaveValue('Autumn sale', { timeout: 30_000 });
  await designer.getByLabel('Heading text').fill('Winter sale');
  await page.getByRole('button', { name: 'Update' }).click();
  await expect.poll(async () => (await storedDesign(campaign.id))?.blocks[0], { timeout: 30_000 }).toEqual({ type: 'heading', text: 'Winter sale' });
  const [row] = await getDb().select().from(schema.campaigns).where(eq(schema.campaigns.id, campaign.id));
  expect(row.bodyHtml).toContain('Winter sale');
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });
  test('email campaign (JavaScript off): the HTML editor saves; the blocks stay while the html is theirs and go when it is edited', async ({ page }) => {
    const { a, campaign } = await designedCampaign();
    await signIn(page, a);
    await page.goto(url(`/campaigns/email/${campaign.id}`, a.domain));
    await page.getByLabel('Name').fill('Autumn, renamed');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect(page.getByTestId('toast')).toBeVisible({ timeout: 30_000 });
    expect((await storedDesign(campaign.id))?.blocks).toHaveLength(2);
    await page.goto(url(`/campaigns/email/${campaign.id}`, a.domain));
    const body = page.getByLabel('Body (HTML)');
    await body.fill(`${await body.inputValue()}<p>Written by hand.</p>`);
    await page.getByRole('button', { name: 'Update' }).click();
    await expect(page.getByTestId('toast')).toBeVisible({ timeout: 30_000 });
    expect(await storedDesign(campaign.id)).toBeNull();
    const [row] = await getDb().select().from(schema.campaigns).where(eq(schema.campaigns.id, campaign.id));
    expect(row.bodyHtml).toContain('Written by hand.');
  });
});
