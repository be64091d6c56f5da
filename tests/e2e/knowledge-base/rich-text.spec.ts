import { expect, test, type Page } from '@playwright/test';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const toast = (page: Page) => page.getByTestId('toast');

async function setup(page: Page) {
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  await signIn(page, a);
  return { ...a, kb };
}

test('without JavaScript: the body is a textarea; Upload image keeps the draft and adds the image; a wrong file is refused on its field', async ({ page }) => {
  const { domain, kb } = await setup(page);
  await page.goto(url(`/knowledgebase/${kb.id}/articles/new`, domain));
  await page.getByLabel('Title', { exact: true }).fill('Printing labels');
  await page.getByLabel('Body (HTML)').fill('<p>Open the order first.</p>');

  await page.getByLabel('Image').setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not really a picture') });
  await page.getByRole('button', { name: 'Upload image' }).click();
  await expect(fieldError(page, 'notes.png is not a PNG, JPEG, GIF or WebP image')).toBeVisible();
  await expect(page.getByLabel('Title', { exact: true })).toHaveValue('Printing labels');
  await expect(page.getByLabel('Body (HTML)')).toHaveValue('<p>Open the order first.</p>');

  await page.getByLabel('Image').setInputFiles({ name: 'label-printer.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('button', { name: 'Upload image' }).click();
  await expect(page.getByLabel('Body (HTML)')).toHaveValue(
    /^<p>Open the order first\.<\/p>\n<p><img src="\/kb-images\/[0-9a-f]{32}" alt="label printer"><\/p>$/,
  );
  await expect(page.getByLabel('Title', { exact: true })).toHaveValue('Printing labels');

  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(toast(page)).toHaveText('Article Published');
  await page.goto(url(`/hc/${kb.slug}`, domain));
  await page.getByRole('link', { name: 'Printing labels' }).click();
  const img = page.locator('article img[alt="label printer"]');
  await expect(img).toBeVisible();
  // The image loads on the public page (naturalWidth is 0 for a broken image).
  expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(1);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });
  test('the rich-text editor: type with formatting from the keyboard-reachable toolbar, insert an image, publish, see it on the help centre', async ({
    page,
  }) => {
    const { domain, kb } = await setup(page);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
    await page.goto(url(`/knowledgebase/${kb.id}/articles/new`, domain));
    await hydrated(page);
    const editor = page.getByRole('textbox', { name: 'Body', exact: true });
    await expect(editor).toBeVisible();
    // The textarea is hidden but stays the form's field; the plain upload is replaced by the toolbar's Image button.
    await expect(page.getByLabel('Body (HTML)')).toBeHidden();
    await expect(page.getByRole('button', { name: 'Upload image' })).toBeHidden();

    await page.getByLabel('Title', { exact: true }).fill('Rich guide');
    await editor.click();
    const toolbar = page.getByRole('toolbar', { name: 'Formatting' });
    await toolbar.getByRole('button', { name: 'Heading 2' }).click();
    await page.keyboard.type('Before you start');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Press ');
    await toolbar.getByRole('button', { name: 'Bold' }).click();
    await expect(toolbar.getByRole('button', { name: 'Bold' })).toHaveAttribute('aria-pressed', 'true');
    await page.keyboard.type('Print');
    await page.keyboard.press('ControlOrMeta+b');
    await page.keyboard.type(' and wait.');
    await page.keyboard.press('Enter');
    await toolbar.getByRole('button', { name: 'Bulleted list' }).click();
    await page.keyboard.type('First step');

    // The toolbar is one tab stop; arrow keys move inside it.
    await toolbar.getByRole('button', { name: 'Paragraph' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(toolbar.getByRole('button', { name: 'Heading 2' })).toBeFocused();
    await page.keyboard.press('End');
    await expect(toolbar.getByRole('button', { name: 'Edit HTML' })).toBeFocused();

    // An image, uploaded and put at the cursor.
    await editor.click();
    await page.keyboard.press('ControlOrMeta+End');
    // The editor asks for the image's alternative text (suggesting the file's name).
    page.once('dialog', (d) => {
      expect(d.defaultValue()).toBe('screen');
      void d.accept('The Print button');
    });
    const chooser = page.waitForEvent('filechooser');
    await toolbar.getByRole('button', { name: 'Image' }).click();
    await (await chooser).setFiles({ name: 'screen.png', mimeType: 'image/png', buffer: PNG });
    await expect(editor.locator('img[alt="The Print button"]')).toBeVisible();
    // A wrong file's message is shown by the editor.
    const chooser2 = page.waitForEvent('filechooser');
    await toolbar.getByRole('button', { name: 'Image' }).click();
    await (await chooser2).setFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(page.getByRole('alert').filter({ hasText: 'notes.txt is not a PNG, JPEG, GIF or WebP image' })).toBeVisible();

    const html = await page.getByLabel('Body (HTML)', { includeHidden: true } as never).inputValue();
    expect(html).toContain('<h2>Before you start</h2>');
    expect(html).toContain('<strong>Print</strong>');
    // The image went where the cursor was: at the end of the list item.
    expect(html).toMatch(/<ul><li><p>First step<img src="\/kb-images\/[0-9a-f]{32}" alt="The Print button"><\/p><\/li><\/ul>$/);

    await page.getByRole('button', { name: 'Publish' }).click();
    await expect(toast(page)).toHaveText('Article Published');
    // After saving, the editor opens the stored (sanitised) body again.
    await expect(page.getByRole('textbox', { name: 'Body', exact: true }).getByRole('heading', { name: 'Before you start' })).toBeVisible();

    await page.goto(url(`/hc/${kb.slug}`, domain));
    await page.getByRole('link', { name: 'Rich guide' }).click();
    const body = page.locator('article');
    await expect(body.getByRole('heading', { name: 'Before you start', level: 2 })).toBeVisible();
    await expect(body.locator('strong')).toHaveText('Print');
    await expect(body.getByRole('listitem')).toHaveText('First step');
    await expect(body.locator('img[alt="The Print button"]')).toBeVisible();
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });

  test('Edit HTML shows the textarea and reads it back; a page where the editor cannot load keeps the working textarea', async ({ page }) => {
    const { domain, kb } = await setup(page);
    await page.goto(url(`/knowledgebase/${kb.id}/articles/new`, domain));
    await hydrated(page);
    const toolbar = page.getByRole('toolbar', { name: 'Formatting' });
    await expect(toolbar).toBeVisible();
    await page.getByRole('textbox', { name: 'Body', exact: true }).click();
    await page.keyboard.type('Hello');
    // From the keyboard: Edit HTML is the toolbar's last button.
    await toolbar.getByRole('button', { name: 'Paragraph' }).focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const source = page.getByLabel('Body (HTML)');
    await expect(source).toBeVisible();
    await expect(source).toHaveValue('<p>Hello</p>');
    // Only Edit HTML stays usable, and it is the toolbar's tab stop.
    await expect(toolbar.getByRole('button', { name: 'Bold' })).toBeDisabled();
    await source.fill('<p>Hello <em>there</em></p><h3>Next</h3>');
    await toolbar.getByRole('button', { name: 'Edit HTML' }).click();
    await expect(source).toBeHidden();
    await expect(page.getByRole('textbox', { name: 'Body', exact: true }).getByRole('heading', { name: 'Next' })).toBeVisible();
    // A table, then one more row: the table buttons work only with the cursor in a table.
    await expect(toolbar.getByRole('button', { name: 'Add a row below' })).toBeDisabled();
    await page.getByRole('textbox', { name: 'Body', exact: true }).getByRole('heading', { name: 'Next' }).click();
    await page.keyboard.press('End');
    await toolbar.getByRole('button', { name: 'Table', exact: true }).click();
    await toolbar.getByRole('button', { name: 'Add a row below' }).click();
    await expect(page.getByRole('textbox', { name: 'Body', exact: true }).locator('tr')).toHaveCount(4);
    expect(await page.getByLabel('Body (HTML)').inputValue()).toMatch(/<table><tbody>(<tr>.*?<\/tr>){4}<\/tbody><\/table>/);

    // The editor's chunk fails to load: the textarea is never hidden and the form saves as without JavaScript.
    await page.route(/editor\.client-[A-Z0-9]+\.js$/, (route) => route.abort());
    await page.goto(url(`/knowledgebase/${kb.id}/articles/new`, domain));
    await hydrated(page);
    await page.getByLabel('Title', { exact: true }).fill('Plain body');
    await page.getByLabel('Body (HTML)').fill('<p>Typed in the textarea</p>');
    await expect(page.getByRole('toolbar', { name: 'Formatting' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Create draft' }).click();
    await expect(toast(page)).toHaveText('Article Created');
    await expect(page.getByLabel('Body (HTML)')).toHaveValue('<p>Typed in the textarea</p>');
  });
});
