import { expect, test, type Page } from '@playwright/test';
import { getDb, schema } from '../../../db/client';
import { createSmsCampaign, scheduleCampaign } from '../../../app/models/campaigns/campaigns.server';
import { createSmsInbox, newSharedSecret } from '../../../app/models/channels/sms.server';
import { createSegment } from '../../../app/models/crm/segments.server';
import { createTestAccount } from '../../factories';
import { gatewaySign, startSmsGateway } from '../../helpers/stand-ins/sms-gateway';
import { port, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/**
 * The SMS inbox here is the custom gateway (a stand-in on a port of its own): the browser tests' Twilio stand-in
 * owns the server's one Twilio port (tests/e2e/channels/sms.spec.ts). Twilio's path is the same sender with
 * Twilio's client (tests/integration/campaigns-sms.test.ts, against the Twilio stand-in).
 */
test('an SMS campaign to a segment through the gateway, with its length shown; a STOP reply keeps the number out of the next one (no JavaScript)', async ({ page }) => {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const secret = newSharedSecret();
  const gateway = await startSmsGateway({ secret: () => secret, answerId: (n) => `gw-${n}` });
  try {
    const inbox = await createSmsInbox({
      accountId,
      actorId: a.owner.id,
      publicBase: url('', a.domain),
      input: { provider: 'custom_sms', name: 'Texts', phoneNumber: '+4915112345', webhookUrl: gateway.url, authToken: secret, threadingInterval: 1, autoResolvedDays: 0, assigneeIds: [a.owner.id] },
    });
    await getDb()
      .insert(schema.contacts)
      .values([
        { accountId, firstName: 'Ana', phone: '+4915100000001', country: 'DE' },
        { accountId, firstName: 'Ben', phone: '+4915100000002', country: 'DE' },
        { accountId, firstName: 'Cy', email: `cy@${a.domain}.test`, country: 'DE' },
      ]);
    const segment = await createSegment({ accountId, actorId: a.owner.id, kind: 'contact', name: 'Germany', isStatic: false, conditions: { country: 'DE' }, memberIds: [] });
    await signIn(page, a);

    await page.goto(url('/campaigns', a.domain));
    await page.getByText('Create Campaign').click();
    await page.getByTestId('new-sms').click();
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(page.locator('.field-error', { hasText: 'Name is not allowed to be empty' })).toBeVisible();
    await page.getByLabel('Name').fill('Spring sale');
    await page.getByLabel('Segment').selectOption({ label: 'Germany' });
    await page.getByLabel('Message').fill('Hi {{firstName}}, 20% off all week.');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(toast(page)).toHaveText('Campaign Created');
    await expect(page.getByTestId('sms-count')).toContainText('1 message (GSM-7)');
    await page.getByRole('button', { name: 'Send or schedule' }).click();
    await expect(toast(page)).toHaveText('Campaign Sending');
    await expect.poll(() => gateway.received.length, { timeout: 20_000 }).toBe(2);
    const ana = gateway.received.find((r) => r.body.to === '+4915100000001')!;
    expect(ana.body.text).toBe('Hi Ana, 20% off all week.\nReply STOP to opt out.');
    expect(ana.signatureValid).toBe(true);

    // Ana texts STOP: the gateway posts it to Parley's webhook, signed.
    const body = JSON.stringify({ type: 'message', id: `in-${accountId}`, from: '+4915100000001', text: 'STOP' });
    const res = await fetch(`http://127.0.0.1:${port()}/webhooks/sms/${inbox.id}`, {
      method: 'POST',
      headers: { host: `${a.domain}.localhost:${port()}`, 'content-type': 'application/json', 'x-parley-signature': gatewaySign(secret, body) },
      body,
    });
    expect(res.status).toBe(201);

    const next = await createSmsCampaign({ accountId, actorId: a.owner.id, name: 'Last day', segmentId: segment.id, inboxId: inbox.id, body: 'Last day!' });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: next.id });
    await expect.poll(() => gateway.received.length, { timeout: 20_000 }).toBe(3);
    expect(gateway.received[2].body.to).toBe('+4915100000002');
    // The gateway has the text before the recipient's mark and the campaign's end are written: reload until it says so.
    await expect
      .poll(
        async () => {
          await page.goto(url(`/campaigns/sms/${next.id}`, a.domain));
          return page.getByTestId('campaign-status').textContent();
        },
        { timeout: 30_000 },
      )
      .toBe('Sent');
  } finally {
    await gateway.close();
  }
});
