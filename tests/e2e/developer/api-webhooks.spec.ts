import http from 'node:http';
import { expect, test } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { createTestAccount } from '../../factories';
import { port, signIn, url } from '../helpers';

// Both screens without JavaScript: plain forms, answers rendered by the server.
test.use({ javaScriptEnabled: false });

test('create an API key, use it to create a conversation and read it back, then revoke it', async ({ page, request }) => {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email' } as never);
  await signIn(page, a);
  await page.goto(url('/settings/developer-api', a.domain));
  // Bad input: no name, no scope; what was typed comes back.
  await page.getByLabel('Read Conversations and messages').uncheck();
  await page.getByRole('button', { name: 'Create Key' }).click();
  await expect(page.getByText('Key Name is required')).toBeVisible();
  await expect(page.getByText('Choose at least one scope')).toBeVisible();
  await page.getByLabel('Key Name').fill('Order sync');
  await page.getByLabel('Write Conversations and messages').check();
  await page.getByRole('button', { name: 'Create Key' }).click();
  await expect(page.getByTestId('new-key')).toContainText('Key “Order sync” created');
  const token = await page.locator('#new-key-token').inputValue();
  expect(token).toMatch(/^prly_/);

  // The key names the account: a script calls any address of the installation (here the loopback one).
  const base = `http://127.0.0.1:${port()}/api/v1`;
  const created = await request.post(`${base}/conversations`, {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: { inboxId: inbox.id, subject: 'Made by the API', contact: { email: 'api@example.test' }, message: 'Hello from a script' },
  });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  const read = await request.get(`${base}/conversations/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(await read.json()).toMatchObject({ id, subject: 'Made by the API' });

  // The page never shows the token again, and shows the key as used.
  await page.goto(url('/settings/developer-api', a.domain));
  expect(await page.content()).not.toContain(token);
  const row = page.getByTestId('api-keys').getByRole('row', { name: /Order sync/ });
  await expect(row).not.toContainText('Never');
  await row.getByRole('button', { name: 'Revoke Order sync' }).click();
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(page.getByTestId('api-keys').getByRole('row', { name: /Order sync/ })).toContainText('Revoked');
  const refused = await request.get(`${base}/conversations/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(refused.status()).toBe(401);
});

test('add a webhook and see a signed delivery arrive at a local receiver', async ({ page }) => {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  try {
    const a = await createTestAccount();
    await signIn(page, a);
    await page.goto(url('/settings/webhooks', a.domain));
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    await expect(page.getByText('Enter a valid URL starting with https:// or http://')).toBeVisible();
    await expect(page.getByText('Choose at least one event')).toBeVisible();
    await expect(page.getByLabel('Endpoint URL')).toHaveValue('not a url');
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByLabel('tag.created').check();
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    await expect(page.getByTestId('new-secret')).toBeVisible();
    const secret = await page.locator('#shown-secret').inputValue();
    expect(secret).toMatch(/^whsec_/);

    await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'from-e2e', color: 'blue' });
    await expect.poll(() => got.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const payload = new Webhook(secret).verify(got[0].body, got[0].headers as Record<string, string>) as { type: string };
    expect(payload.type).toBe('tag.created');

    await page.getByTestId('webhooks').getByRole('link', { name: receiverUrl }).click();
    await expect(page.getByTestId('deliveries')).toContainText('tag.created');
    await expect(page.getByTestId('delivery-status').first()).toHaveText('delivered');
    expect(await page.content()).not.toContain(secret);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
