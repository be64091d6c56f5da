import { expect, test } from '@playwright/test';
import { and, eq, inArray } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { projectEvents } from '../../../app/models/analytics/projection.server';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createGoal, createSaleTracker } from '../../../app/models/conversions/conversions.server';
import { postMessage } from '../../../app/models/inbox/conversations.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

test.use({ javaScriptEnabled: false });

test('a goal and a sale recorded through the messenger appear on Goals, Sales tracking and Settings → Conversions', async ({ page, request }) => {
  test.setTimeout(120_000);
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Shop site' });
  await createSaleTracker({ accountId: a.account.id, actorId: a.owner.id, name: 'Checkout', currency: 'EUR', attributionDays: 30, active: true });
  await createGoal({
    accountId: a.account.id,
    actorId: a.owner.id,
    name: 'Signed up',
    eventName: 'signup',
    description: '',
    attributionDays: 30,
    active: true,
  });

  // The messenger's calls, as widget.js makes them from the customer's site.
  const headers = { origin: 'http://shop.example' };
  const session = await (await request.post(url('/public/widget/session'), { data: { inboxId: inbox.id }, headers })).json();
  const auth = { ...headers, authorization: `Bearer ${session.token}` };
  const sent = await (await request.post(url('/public/widget/messages'), { form: { text: 'Is the blue one in stock?' }, headers: auth })).json();
  await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: sent.conversationId, kind: 'outgoing', text: 'Yes, ships today.' });
  const sale = await request.post(url('/public/widget/track'), { data: { name: 'sale', props: { amount: 49.9, orderId: 'A-1042' } }, headers: auth });
  expect(await sale.json()).toMatchObject({ ok: true, sale: { recorded: true } });
  expect(await (await request.post(url('/public/widget/track'), { data: { name: 'signup' }, headers: auth })).json()).toMatchObject({ goals: 1 });
  // Counted now rather than waiting for the engine (the ledger keeps it to once either way).
  const events = await getDb()
    .select({ id: schema.domainEvents.id })
    .from(schema.domainEvents)
    .where(
      and(
        eq(schema.domainEvents.accountId, a.account.id),
        inArray(schema.domainEvents.type, ['sale_recorded', 'goal_reached', 'conversation_created', 'conversation_assigned']),
      ),
    );
  await projectEvents({ eventIds: events.map((e) => e.id) });

  await signIn(page, a);
  await page.goto(url('/analytics/sales-tracking?range=7d', a.domain));
  await expect(page.getByTestId('headline-Sales')).toHaveText('1');
  await expect(page.getByTestId('headline-Attributed sales')).toHaveText('1');
  await expect(page.getByTestId('headline-Revenue (EUR)')).toHaveText('49.90');
  await expect(page.getByRole('table', { name: 'By currency' })).toContainText('EUR');
  await page.goto(url('/analytics/goals?range=7d', a.domain));
  await expect(page.getByTestId('headline-Conversions')).toHaveText('1');
  await expect(page.getByTestId('headline-After a conversation')).toHaveText('1');
  await expect(page.getByRole('table', { name: 'By goal' })).toContainText('Signed up');

  // Settings → Conversions, without JavaScript: the goal with its conversion, a new tracker through the form.
  await page.goto(url('/settings/goals', a.domain));
  await expect(page.getByTestId('goals')).toContainText('Signed up');
  await page.goto(url('/settings/sales-tracker/add', a.domain));
  await page.getByLabel('Tracker Name').fill('EU store');
  await page.getByLabel('Currency').fill('eur');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('trackers')).toContainText('EU store');
});
