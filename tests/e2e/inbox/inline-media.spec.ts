import zlib from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { fieldError, hydrated, latestMail, signIn, toast, url } from '../helpers';

/** A real PNG of one colour (the same as tests/helpers/png.ts, kept here so the spec needs no Node-only helper). */
function png(width: number, height: number) {
  const chunk = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), body]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x4f)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function wav(samples = 800) {
  const b = Buffer.alloc(44 + samples);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples, 40);
  b.fill(128, 44);
  return b;
}

async function setup() {
  const a = await createTestAccount();
  const support = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: support.id,
    sourceType: 'email',
    subject: 'Which button?',
    contact: { email: `cara-${a.domain}@example.test`, name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'I cannot find the export button' },
  });
  return { ...a, conversation, customer: `cara-${a.domain}@example.test` };
}

const reply = (page: Page) => page.getByTestId('thread').locator('[data-kind="outgoing"]');

/** The image really loads, through the signed-in attachment route (the page's own cookies): the browser's response. */
function imageResponses(page: Page) {
  const seen: { path: string; status: number; type: string | undefined }[] = [];
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/attachments/')) seen.push({ path: u.pathname, status: r.status(), type: r.headers()['content-type'] });
  });
  return seen;
}

test('without JavaScript, an inline image goes where [image] is and an audio clip gets a player; a wrong file is refused and the text kept', async ({ page }) => {
  const s = await setup();
  await signIn(page, s);
  await page.goto(url(`/inbox/${s.conversation.id}`, s.domain));

  // A "PNG" that is not one: refused by its bytes, with the specification's words, and nothing sent.
  await page.getByLabel('Message', { exact: true }).fill('Here it is: [image] then press it.');
  await page.getByLabel('Inline images').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
  await page.getByRole('button', { name: 'Send reply' }).click();
  await expect(fieldError(page, 'Inline images must be PNG, JPEG, GIF or WebP files: fake.png')).toBeVisible();
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('Here it is: [image] then press it.');
  await expect(reply(page)).toHaveCount(0);

  const loaded = imageResponses(page);
  await page.getByLabel('Inline images').setInputFiles({ name: 'export-button.png', mimeType: 'image/png', buffer: png(12, 8) });
  await page.getByLabel('Audio clip').setInputFiles({ name: 'how-to.wav', mimeType: 'audio/wav', buffer: wav() });
  await page.getByRole('button', { name: 'Send reply' }).click();
  await expect(toast(page)).toHaveText('Email Sent');
  const sent = reply(page);
  await expect(sent).toContainText('Here it is:');
  const img = sent.locator('.msg-html img');
  await expect(img).toHaveAttribute('alt', 'export-button.png');
  const src = await img.getAttribute('src');
  expect(src).toMatch(/^\/attachments\/\d+$/);
  await expect.poll(() => loaded.find((r) => r.path === src)).toEqual({ path: src, status: 200, type: 'image/png' });
  // In place: between the words around the placeholder, not listed again as a file.
  expect(await sent.locator('.msg-html').innerHTML()).toMatch(/Here it is: <img [^>]*> then press it\./);
  await expect(sent.getByRole('link', { name: 'export-button.png' })).toHaveCount(0);
  await expect(sent.getByTestId('audio-player')).toHaveAttribute('src', /^\/attachments\/\d+$/);
  await expect(sent.getByRole('link', { name: 'how-to.wav' })).toBeVisible();

  const mail = await latestMail(s.customer);
  expect(mail.text).toBe('Here it is: [image: export-button.png] then press it.');
  expect(mail.html).toMatch(/<img src="cid:img-[0-9a-f]{24}@parley\.inline"/);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('a pasted image is named at the cursor and sent inline', async ({ page }) => {
    const s = await setup();
    await signIn(page, s);
    await page.goto(url(`/inbox/${s.conversation.id}`, s.domain));
    await hydrated(page);
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('Look: ');
    await box.press('End');
    await box.evaluate((el, b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, png(6, 6).toString('base64'));
    await expect(box).toHaveValue('Look: [image: pasted-1.png]');
    await expect(page.getByLabel('Inline images')).toHaveJSProperty('files.length', 1);
    await expect(page.getByRole('toolbar', { name: 'Media' }).getByRole('status')).toContainText('pasted-1.png will be sent in the message');
    await expect(page.getByRole('button', { name: 'Insert image' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();

    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect(toast(page)).toHaveText('Email Sent');
    const img = reply(page).locator('.msg-html img');
    await expect(img).toHaveAttribute('alt', 'pasted-1.png');
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(6);
    const mail = await latestMail(s.customer);
    expect(mail.text).toBe('Look: [image: pasted-1.png]');
  });

  test('a refused microphone is said plainly', async ({ page, context }) => {
    const s = await setup();
    await context.clearPermissions();
    await signIn(page, s);
    await page.goto(url(`/inbox/${s.conversation.id}`, s.domain));
    await hydrated(page);
    // No microphone here: the browser refuses, and the reply box says so instead of doing nothing.
    await page.getByRole('button', { name: 'Record' }).click();
    await expect(page.getByTestId('record-status')).toHaveText(/Microphone access was denied|No microphone was found|cannot record audio|Recording failed: .+\. Upload an audio file instead\./);
    await expect(page.getByRole('button', { name: 'Record' })).toBeEnabled();
  });
});
