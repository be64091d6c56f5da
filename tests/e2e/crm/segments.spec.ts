import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createContact, tagContacts } from '../../../app/models/crm/contacts.server';
import { createSegment, getSegment } from '../../../app/models/crm/segments.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

test('a dynamic segment in two steps: members follow a tag change, edit reopens at step 1 (JavaScript off)', async ({ page }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const vip = await createTag({ ...who, name: 'VIP', color: 'red' });
  const ann = await createContact({ ...who, input: { firstName: 'Ann', lastName: 'Vip', email: 'ann@x.test', tagIds: [vip.id] } });
  const bob = await createContact({ ...who, input: { firstName: 'Bob', lastName: 'Plain', email: 'bob@x.test' } });
  await signIn(page, a);
  await page.goto(url('/customers', a.domain));
  await page.getByRole('link', { name: 'New contact segment' }).click();
  const dialog = page.getByTestId('segment-dialog');
  await expect(dialog).toContainText('Step 1 of 2');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(fieldError(page, 'Name is required')).toBeVisible();
  await page.getByLabel('Segment Name').fill('V'.repeat(21));
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await page.getByLabel('Segment Name').fill('  VIPs  ');
  await page.getByLabel('Dynamic (by conditions)').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(dialog).toContainText('Step 2 of 2');
  await expect(dialog).toContainText('Filters apply only if at least one condition is non-empty; Reset Filter clears them.');
  await expect(page.getByTestId('segment-count')).toContainText('2');
  await page.getByLabel('Tag').selectOption({ label: 'VIP' });
  await page.getByRole('button', { name: 'Refresh count' }).click();
  await expect(page.getByTestId('segment-count')).toContainText('1');
  await page.getByRole('button', { name: 'Reset Filter' }).click();
  await expect(page.getByLabel('Tag')).toHaveValue('');
  await expect(page.getByTestId('segment-count')).toContainText('2');
  await page.getByLabel('Tag').selectOption({ label: 'VIP' });
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(toast(page)).toHaveText('Segment created');
  await expect(page).toHaveURL(/\/customers\/segment\/\d+$/);
  const segmentId = Number(page.url().split('/').pop());
  await expect(page.getByRole('navigation', { name: 'CRM' }).getByRole('link', { name: 'VIPs' })).toBeVisible();
  const table = page.getByTestId('contacts');
  await expect(table).toContainText('ann@x.test');
  await expect(table).not.toContainText('bob@x.test');

  // Membership follows the tag.
  await tagContacts({ ...who, ids: [bob.id], tagId: vip.id });
  await page.reload();
  await expect(table).toContainText('bob@x.test');
  await expect(page.getByTestId('segment-total')).toHaveText('2');

  // Edit reopens at step 1 with the saved data, then step 2 with the saved condition.
  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(dialog).toContainText('Step 1 of 2');
  await expect(page.getByLabel('Segment Name')).toHaveValue('VIPs');
  await page.getByLabel('Segment Name').fill('Top VIPs');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByLabel('Tag')).toHaveValue(String(vip.id));
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(toast(page)).toHaveText('Updated');
  expect((await getSegment({ accountId: a.account.id, id: segmentId }))?.name).toBe('Top VIPs');
  expect(ann.id).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Deleted');
  expect(await getSegment({ accountId: a.account.id, id: segmentId })).toBeUndefined();
});

test('a static segment of chosen contacts (JavaScript off)', async ({ page }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const chosen = await createContact({ ...who, input: { firstName: 'Chosen', lastName: 'One', email: 'chosen@x.test' } });
  await createContact({ ...who, input: { firstName: 'Left', lastName: 'Out', email: 'left@x.test' } });
  await signIn(page, a);
  await page.goto(url('/customers/segments/new?kind=contact', a.domain));
  await page.getByLabel('Segment Name').fill('Picked');
  await page.getByLabel('Static (chosen members)').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('Search members').fill('chosen');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId('member-candidates').getByRole('listitem')).toHaveCount(1);
  await page.getByLabel(/Chosen One/).check();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(toast(page)).toHaveText('Segment created');
  const table = page.getByTestId('contacts');
  await expect(table).toContainText('chosen@x.test');
  await expect(table).not.toContainText('left@x.test');
  const segmentId = Number(page.url().split('/').pop());
  expect((await getSegment({ accountId: a.account.id, id: segmentId }))?.memberIds).toEqual([chosen.id]);
});

test('segments are denied on the starter plan, with the plan message and the menu badge', async ({ page }) => {
  const a = await createTestAccount();
  const segment = await createSegment({ accountId: a.account.id, actorId: a.owner.id, kind: 'contact', name: 'Any', isStatic: false, conditions: {}, memberIds: [] });
  const [starter] = await getDb().select().from(schema.plans).where(eq(schema.plans.key, 'starter'));
  await getDb().update(schema.accounts).set({ planId: starter.id }).where(eq(schema.accounts.id, a.account.id));
  await signIn(page, a);
  // A page load falls back to the area's list with the plan message (section 2); the segment is not shown.
  await page.goto(url(`/customers/segment/${segment.id}`, a.domain));
  await expect(page).toHaveURL(/\/customers$/);
  await expect(page.getByText('Your current plan does not support this feature. Please contact your account administrator.')).toBeVisible();
  await expect(page.getByTestId('menu-contact').locator('[data-denied="feature"]')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'CRM' })).not.toContainText('Any');
});
