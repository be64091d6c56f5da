import { expect, test, type Page } from '@playwright/test';
import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { defaultSlaTargets } from '../../../app/models/automation/sla-policies.schemas';
import { createSlaPolicy } from '../../../app/models/automation/sla-policies.server';
import { QUEUES } from '../../../app/utils/jobs.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/**
 * A dead letter as pg-boss writes it when a domain-event job fails its last retry: the job's data and the error
 * in the dead-letter queue (tests/integration/dead-letters.test.ts makes real ones through pg-boss).
 */
async function deadLetterFor(account: { id: number }, ownerId: number, error: string) {
  const policy = await createSlaPolicy({ accountId: account.id, actorId: ownerId, name: `P ${error}`, inboxIds: [], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: true });
  const [event] = await getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.subjectId, String(policy.id)), eq(schema.domainEvents.type, 'sla_policy_created')));
  const [row] = await getDb().execute<{ id: string }>(
    sql`insert into pgboss.job (name, data, output) values (${QUEUES.deadLetters}, ${JSON.stringify({ eventId: event.id })}::jsonb, ${JSON.stringify({ message: error })}::jsonb) returning id::text as id`,
  );
  return row.id;
}

test('failed automations: the account\'s dead letters, Retry and Dismiss, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  const b = await createTestAccount();
  const first = await deadLetterFor(a.account, a.owner.id, 'handler exploded');
  await deadLetterFor(b.account, b.owner.id, 'another account failed');
  await signIn(page, a);
  await page.goto(url('/settings/failed-automations', a.domain));
  await expect(page).toHaveTitle('Failed Automations | Settings | Parley');
  const row = page.getByTestId(`dead-letter-${first}`);
  await expect(row).toContainText('sla_policy_created');
  await expect(row).toContainText('handler exploded');
  await expect(page.getByTestId('failed-automations')).not.toContainText('another account failed');
  await expect(page.getByTestId('failed-automations').getByRole('row')).toHaveCount(2);

  await row.getByRole('button', { name: 'Retry' }).click();
  await expect(toast(page)).toHaveText('Automation Retried');
  await expect(page.getByTestId('empty')).toBeVisible();

  const second = await deadLetterFor(a.account, a.owner.id, 'second failure');
  await page.reload();
  await page.getByTestId(`dead-letter-${second}`).getByRole('button', { name: 'Dismiss' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to dismiss ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Failed Automation Dismissed');
  await expect(page.getByTestId('empty')).toBeVisible();
});

test('failed automations are refused to roles without manage_workflow_rules', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  // A page load falls back to Settings with the denial (section 2); a form post would get the 403.
  await page.goto(url('/settings/failed-automations', a.domain));
  await expect(page).toHaveURL(/\/settings(\/my-profile)?$/);
  await expect(toast(page)).toHaveText("You aren't authorized to see this page.");
});
