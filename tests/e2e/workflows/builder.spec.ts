import { expect, test, type Page } from '@playwright/test';
import { createWorkflow } from '../../../app/models/automation/workflows.server';
import { setAccountPlan } from '../../../app/models/accounts/accounts.server';
import { FEATURE_DENIED_MESSAGE } from '../../../app/models/plans/catalogue';
import { createTestAccount } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/** Opens a builder section's "Add …" menu (a `<details>`) and presses one of its buttons. */
async function addRow(page: Page, menu: 'add-condition' | 'add-filter' | 'add-action', item: string) {
  await page.getByTestId(menu).locator('summary').click();
  await page.getByRole('button', { name: item, exact: true }).click();
}

test('workflows: create through the dialog, build with add-row submissions, validation, save and status change, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/workflows', a.domain));
  await expect(page).toHaveTitle('Workflows | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create Workflow' }).click();
  await expect(page).toHaveURL(url('/workflows/builder', a.domain));

  // The dialog: name at most 20.
  const dialog = page.getByTestId('workflow-create-dialog');
  await dialog.getByLabel('Name', { exact: true }).fill('A workflow name that is too long');
  await dialog.getByLabel('Description').fill('Sorts VIP mail');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await expect(dialog.getByLabel('Name', { exact: true })).toHaveValue('A workflow name that is too long');
  await dialog.getByLabel('Name', { exact: true }).fill('VIP triage');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(toast(page)).toHaveText('Workflow Created');
  await expect(page).toHaveURL(/\/workflows\/builder\/\d+$/);
  await expect(page.getByRole('heading', { name: 'VIP triage' })).toBeVisible();
  await expect(page.getByLabel('Description')).toHaveValue('Sorts VIP mail');

  // Rows are added by submissions that bring the builder back with the draft kept.
  await page.getByLabel('Trigger event').selectOption('conversation_created');
  await addRow(page, 'add-condition', 'Add condition: Country');
  // The page comes back at the new row (autofocus), not at its top.
  await expect(page.getByTestId('condition-0')).toBeFocused();
  await page.getByLabel('Condition 1 value').fill('France');
  await addRow(page, 'add-filter', 'Add filter: Subject');
  await expect(page.getByLabel('Condition 1 value')).toHaveValue('France');
  await page.getByLabel('Filter 1 operator').selectOption('contains');
  await page.getByLabel('Filter 1 value').fill('refund');
  await addRow(page, 'add-action', 'Add action: Assign user');
  await addRow(page, 'add-action', 'Add action: Leave a note');
  await expect(page.getByLabel('Filter 1 value')).toHaveValue('refund');
  await expect(page.getByTestId('action-0')).toContainText('Assign user');
  await expect(page.getByTestId('action-1')).toContainText('Leave a note');

  // Each action's own message.
  await page.getByLabel('Action 2 note').fill('x');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Assignee must be specified')).toBeVisible();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await expect(page.getByLabel('Condition 1 value')).toHaveValue('France');
  await page.getByLabel('Action 1 assignee').selectOption({ label: 'Olive Owner' });
  await page.getByLabel('Action 2 note').fill('A VIP wrote in');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Workflow Updated');
  await expect(page.getByLabel('Action 2 note')).toHaveValue('A VIP wrote in');
  await expect(page.getByLabel('Action 1 assignee')).toHaveValue(String(a.owner.id));

  // A changed event flags the actions it does not offer.
  await page.getByLabel('Trigger event').selectOption('contact_created');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Assign user is not offered for Contact created')).toBeVisible();
  await page.getByRole('button', { name: 'Remove action 1' }).click();
  await expect(page.getByTestId('action-0')).toContainText('Leave a note');
  await expect(page.getByTestId('action-0')).toBeFocused();
  await page.getByLabel('Trigger event').selectOption('conversation_created');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Workflow Updated');

  // The list: the row, then the status switch after the "Status Change" confirmation.
  await page.getByRole('link', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(url('/workflows', a.domain));
  const row = page.getByTestId('workflows').getByRole('row', { name: /VIP triage/ });
  await expect(row).toContainText('Conversation created');
  await expect(row).toContainText('Olive Owner');
  await expect(row.getByRole('cell').first()).toHaveText('1');
  await row.getByRole('button', { name: 'Inactive' }).click();
  const confirm = page.getByRole('dialog');
  await expect(confirm).toContainText('Status Change');
  await expect(confirm).toContainText('Are you sure you want to update status ?');
  await confirm.getByRole('button', { name: 'Update' }).click();
  await expect(toast(page)).toHaveText('Workflow Updated');
  await expect(page.getByTestId('workflows').getByRole('row', { name: /VIP triage/ }).getByRole('button', { name: 'Active', exact: true })).toBeVisible();

  // The run history tab (empty until the engine runs it).
  await page.getByTestId('workflows').getByRole('link', { name: 'VIP triage' }).click();
  await page.getByRole('link', { name: 'Run history' }).click();
  await expect(page.getByTestId('no-runs')).toBeVisible();

  // Delete from the list.
  await page.goto(url('/workflows', a.domain));
  await page.getByTestId('workflows').getByRole('row', { name: /VIP triage/ }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Workflow Deleted');
  await expect(page.getByTestId('empty')).toBeVisible();
});

test('workflows: the plan without advanceWorkflows shows the empty state with a denied call to action', async ({ page }) => {
  const a = await createTestAccount();
  await createWorkflow({ accountId: a.account.id, actorId: a.owner.id, name: 'Old flow', description: '' });
  await setAccountPlan({ domain: a.domain, planKey: 'starter' });
  await signIn(page, a);
  await page.goto(url('/workflows', a.domain));
  await expect(page.getByTestId('empty')).toContainText(FEATURE_DENIED_MESSAGE);
  await expect(page.getByTestId('create-workflow-denied')).toBeVisible();
  await expect(page.getByText('Old flow')).toHaveCount(0);
  // Denied page loads fall back to the list with the denial (section 2).
  await page.goto(url('/workflows/builder', a.domain));
  await expect(page).toHaveURL(/\/workflows$/);
  await expect(toast(page)).toHaveText(FEATURE_DENIED_MESSAGE);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('Create stays disabled until the dialog is edited; the action menu follows the event', async ({ page }) => {
    const a = await createTestAccount();
    await signIn(page, a);
    await page.goto(url('/workflows/builder', a.domain));
    await hydrated(page);
    const create = page.getByRole('button', { name: 'Create' });
    await expect(create).toBeDisabled();
    await page.getByLabel('Name', { exact: true }).fill('Contacts');
    await expect(create).toBeEnabled();
    await create.click();
    await expect(page).toHaveURL(/\/workflows\/builder\/\d+$/);
    await page.getByLabel('Trigger event').selectOption('contact_created');
    await page.getByTestId('add-action').locator('summary').click();
    await expect(page.getByRole('button', { name: 'Add action: Add website', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add action: Assign user', exact: true })).toHaveCount(0);
    await page.getByRole('button', { name: 'Add action: Add title', exact: true }).click();
    // The focus goes to the new row's first control.
    await expect(page.getByLabel('Action 1 title')).toBeFocused();
    await page.getByLabel('Action 1 title').fill('VIP');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('toast')).toHaveText('Workflow Updated');
    await expect(page.getByLabel('Action 1 title')).toHaveValue('VIP');
  });
});
