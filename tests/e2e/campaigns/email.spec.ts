import { expect, test, type Page } from '@playwright/test';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { getDb, schema } from '../../../db/client';
import { createEmailCampaign, scheduleCampaign } from '../../../app/models/campaigns/campaigns.server';
import { createSegment } from '../../../app/models/crm/segments.server';
import { createEmailInbox, setSmtpSettings } from '../../../app/models/email/email-inboxes.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/** The inbox's mail provider: a real SMTP server on loopback that keeps what it receives. */
async function startSink() {
  const received: { to: string; raw: Buffer }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        for (const r of session.envelope.rcptTo) received.push({ to: r.address, raw: Buffer.concat(chunks) });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as { port: number }).port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test('a template, an email campaign scheduled and sent to a segment, tracked, and an unsubscribe the next campaign honours (no JavaScript)', async ({ page }) => {
  const a = await createTestAccount();
  const accountId = a.account.id;
  const sink = await startSink();
  try {
    const inbox = await createEmailInbox({ accountId, actorId: a.owner.id, name: 'Acme News', email: `news@${a.domain}.test`, mode: 'forwarding' });
    await setSmtpSettings({ accountId, actorId: a.owner.id, id: inbox.id, input: { host: '127.0.0.1', port: sink.port, secure: false, user: '', password: '' } });
    await getDb()
      .insert(schema.contacts)
      .values([
        { accountId, firstName: 'Ana', lastName: 'Ames', email: `ana@${a.domain}.test`, country: 'FR' },
        { accountId, firstName: 'Ben', lastName: 'Bell', email: `ben@${a.domain}.test`, country: 'FR' },
        { accountId, firstName: 'Dee', lastName: 'Dunn', email: `dee@${a.domain}.test`, country: 'DE' },
      ]);
    const segment = await createSegment({ accountId, actorId: a.owner.id, kind: 'contact', name: 'France', isStatic: false, conditions: { country: 'FR' }, memberIds: [] });
    await signIn(page, a);
    // A page the browser can reach stands for the offer the email links to.
    const offer = url('/help-center', a.domain);

    // 1. A campaign template, with the specification's messages on bad input.
    await page.goto(url('/settings/campaigns-templates/new', a.domain));
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(fieldError(page, 'Name is not allowed to be empty')).toBeVisible();
    await page.getByLabel('Name').fill('Monthly news');
    await page.getByLabel('Subject').fill('x'.repeat(31));
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(fieldError(page, 'Length must be less than or equal to 30 characters')).toBeVisible();
    await expect(page.getByLabel('Name')).toHaveValue('Monthly news');
    await page.getByLabel('Subject').fill('News for you');
    await page.getByLabel('Body (HTML)').fill(`<p>Hello {{firstName}}, see <a href="${offer}">the offer</a>.</p>`);
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(toast(page)).toHaveText('Campaign Template Created');
    await expect(page.getByTestId('campaign-templates')).toContainText('Monthly news');

    // 2. An email campaign from the template to the segment.
    await page.goto(url('/campaigns', a.domain));
    await page.getByText('Create Campaign').click();
    await page.getByTestId('new-email').click();
    await page.getByLabel('Name').fill('November news');
    await page.getByLabel('Segment').selectOption({ label: 'France' });
    await page.getByLabel('Template').selectOption({ label: 'Monthly news' });
    await page.getByLabel('Subject').fill('Hello {{firstName}}');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(toast(page)).toHaveText('Campaign Created');

    // 3. Scheduled in a time zone, then sent now.
    await page.getByLabel('Schedule').check();
    await page.getByLabel('Date and time').fill('2099-01-15T09:30');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Send or schedule' }).click();
    await expect(toast(page)).toHaveText('Campaign Scheduled');
    await expect(page.getByTestId('scheduled-for')).toContainText('Europe/Paris');
    await page.getByRole('button', { name: 'Unschedule' }).click();
    await expect(page.getByTestId('campaign-status')).toHaveText('Draft');
    await page.getByRole('button', { name: 'Send or schedule' }).click();
    await expect(toast(page)).toHaveText('Campaign Sending');
    await expect.poll(() => sink.received.length, { timeout: 20_000 }).toBe(2);
    expect(sink.received.map((m) => m.to).sort()).toEqual([`ana@${a.domain}.test`, `ben@${a.domain}.test`]);

    // 4. Opened and clicked: the pixel and the signed redirect.
    const mail = await simpleParser(sink.received.find((m) => m.to.startsWith('ana@'))!.raw);
    expect(mail.subject).toBe('Hello Ana');
    const html = String(mail.html);
    const pixel = /src="([^"]+\/c\/o\/[^"]+)"/.exec(html)![1];
    const click = /href="([^"]+\/c\/c\/[^"]+)"/.exec(html)![1];
    const unsub = /href="([^"]+\/c\/u\/[^"]+)"/.exec(html)![1];
    expect((await page.goto(pixel))?.headers()['content-type']).toBe('image/gif');
    await page.goto(click);
    await expect(page).toHaveURL(offer);
    const forged = click.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A'));
    expect((await page.goto(forged))?.status()).toBe(404);

    // 5. Unsubscribed from the email's own link, without JavaScript.
    await page.goto(unsub);
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect(page.getByTestId('unsubscribed')).toContainText(`ana@${a.domain}.test`);

    await page.goto(url('/campaigns', a.domain));
    await page.getByRole('link', { name: 'November news' }).click();
    await expect(page.getByTestId('campaign-status')).toHaveText('Sent');
    await expect(page.getByTestId('figure-opened')).toContainText('1');
    await expect(page.getByTestId('figure-clicked')).toContainText('1');
    await expect(page.getByTestId('figure-unsubscribed')).toContainText('1');

    // 6. The next campaign to the same segment skips the address that unsubscribed.
    const next = await createEmailCampaign({ accountId, actorId: a.owner.id, name: 'December news', segmentId: segment.id, inboxId: inbox.id, subject: 'December', bodyHtml: '<p>Hi</p>', trackOpens: false, trackClicks: false });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: next.id });
    await expect.poll(() => sink.received.length, { timeout: 20_000 }).toBe(3);
    expect(sink.received[2].to).toBe(`ben@${a.domain}.test`);
  } finally {
    await sink.close();
  }
});
