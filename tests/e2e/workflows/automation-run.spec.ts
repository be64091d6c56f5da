import { expect, test, type Page } from '@playwright/test';
import nodemailer from 'nodemailer';
import { createEmailInbox } from '../../../app/models/email/email-inboxes.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { getDb, schema } from '../../../db/client';
import { createTestAccount, createTestUser } from '../../factories';
import { signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

async function addRow(page: Page, menu: 'add-condition' | 'add-filter' | 'add-action', item: string) {
  await page.getByTestId(menu).locator('summary').click();
  await page.getByRole('button', { name: item, exact: true }).click();
}

test('a workflow built without JavaScript acts on the conversation an email opens, and the conversation shows why', async ({ page }) => {
  const a = await createTestAccount();
  await createTestUser({
    accountId: a.account.id,
    firstName: 'Vera',
    email: `vera-${a.domain}@example.test`,
  });
  await createTag({
    accountId: a.account.id,
    actorId: a.owner.id,
    name: 'refunds',
    color: 'orange',
  });
  const inbox = await createEmailInbox({
    accountId: a.account.id,
    actorId: a.owner.id,
    name: 'Support',
    email: `help@${a.domain}.test`,
    mode: 'forwarding',
  });
  // An SLA policy for every inbox: the due times show on the list and the conversation.
  await getDb()
    .insert(schema.slaPolicies)
    .values({
      accountId: a.account.id,
      name: 'Standard',
      targets: (['critical', 'high', 'medium', 'low', 'default'] as const).map((priority) => ({
        priority,
        response: { value: 4, unit: 'hour' as const },
        resolve: { value: 2, unit: 'day' as const },
      })),
    });
  await signIn(page, a);

  // Build: a condition (a new contact), a filter (subject contains "refund"), two actions (assign Vera, tag).
  await page.goto(url('/workflows/builder', a.domain));
  await page.getByTestId('workflow-create-dialog').getByLabel('Name', { exact: true }).fill('Refund triage');
  await page.getByTestId('workflow-create-dialog').getByRole('button', { name: 'Create' }).click();
  await expect(toast(page)).toHaveText('Workflow Created');
  await page.getByLabel('Trigger event').selectOption('conversation_created');
  await addRow(page, 'add-condition', 'Add condition: New contact');
  await addRow(page, 'add-filter', 'Add filter: Subject');
  await page.getByLabel('Filter 1 operator').selectOption('contains');
  await page.getByLabel('Filter 1 value').fill('refund');
  await addRow(page, 'add-action', 'Add action: Assign user');
  await addRow(page, 'add-action', 'Add action: Add tags');
  await page.getByLabel('Action 1 assignee').selectOption({ label: 'Vera Agent' });
  await page.getByLabel('Action 2 tags').selectOption({ label: 'refunds' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Workflow Updated');

  // Activate after the "Status Change" confirmation.
  await page.goto(url('/workflows', a.domain));
  const row = page.getByTestId('workflows').getByRole('row', { name: /Refund triage/ });
  await row.getByRole('button', { name: 'Inactive' }).click();
  await expect(page.getByRole('dialog')).toContainText('Are you sure you want to update status ?');
  await page.getByRole('dialog').getByRole('button', { name: 'Update' }).click();
  await expect(toast(page)).toHaveText('Workflow Updated');

  // A customer writes in (real SMTP to Parley's inbound server); the engine runs the workflow.
  const mailer = nodemailer.createTransport({
    host: '127.0.0.1',
    port: Number(process.env.E2E_SMTP_INBOUND_PORT),
    secure: false,
    ignoreTLS: true,
  });
  await mailer.sendMail({
    from: 'Rita Refund <rita@example.test>',
    to: `${inbox.forwardingToken}@${process.env.INBOUND_EMAIL_DOMAIN}`,
    subject: 'I want a refund',
    text: 'The kettle leaks.',
  });
  await mailer.sendMail({
    from: 'Otto Other <otto@example.test>',
    to: `${inbox.forwardingToken}@${process.env.INBOUND_EMAIL_DOMAIN}`,
    subject: 'Opening hours?',
    text: 'When are you open?',
  });

  await page.goto(url('/inbox?status=all', a.domain));
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('row', { name: /I want a refund/ })).toContainText('Reply by');
  }).toPass({ timeout: 15_000 });
  await page.getByRole('link', { name: 'I want a refund' }).click();
  // The actions, visible on the conversation (the engine is asynchronous: reload until they are there).
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('automation-run')).toHaveCount(1);
  }).toPass({ timeout: 15_000 });
  const run = page.getByTestId('automation-run');
  await expect(run).toContainText('Refund triage');
  await expect(run).toContainText('Applied');
  await expect(run).toContainText('assign user: applied');
  await expect(run).toContainText('assign tag: applied');
  await expect(page.locator('header.conv-head')).toContainText('Vera Agent');
  await expect(page.getByText('Assigned to Vera Agent by Parley')).toBeVisible();
  await expect(page.locator('aside').getByText('refunds', { exact: true })).toBeVisible();
  await expect(page.getByTestId('sla-panel')).toContainText('First response due');
  await expect(page.getByTestId('sla-panel')).toContainText('Reply by');

  // The other conversation: the rule looked and passed; the agent can ask why.
  await page.goto(url('/inbox?status=all', a.domain));
  await page.getByRole('link', { name: 'Opening hours?' }).click();
  await expect(page.getByTestId('automations-panel')).toContainText('No rule has acted on this conversation.');
  await page.getByRole('link', { name: 'Show every rule that looked' }).click();
  await expect(page.getByTestId('automation-run')).toContainText('Not matched');
  await expect(page.getByTestId('automation-run')).toContainText('filter 1 (subject) does not match');

  // The workflow's run history says the same.
  await page.goto(url('/workflows', a.domain));
  await page.getByTestId('workflows').getByRole('link', { name: 'Refund triage' }).click();
  await page.getByRole('link', { name: 'Run history' }).click();
  await expect(page.getByText('filter 1 (subject) does not match')).toBeVisible();
  // Names, not ids: the user and the tag the actions touched.
  await expect(page.getByText(/assigned conversation #\d+ to Vera Agent/)).toBeVisible();
  await expect(page.getByText(/tagged conversation #\d+ with refunds/)).toBeVisible();
});
