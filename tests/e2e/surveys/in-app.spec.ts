import http from 'node:http';
import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createTestAccount } from '../../factories';
import { publishedSurvey, questionOf } from '../../helpers/surveys';
import { port } from '../helpers';

/**
 * An in-app survey on a customer's site (another origin): the messenger script learns from its session that a
 * survey targets the page, fetches the survey module, and shows the survey after the configured delay.
 */
test.use({ javaScriptEnabled: true });

let site: http.Server;
let sitePort: number;
let inboxId = 0;

test.beforeAll(async () => {
  site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Shop</title><style>* { color: rgb(255, 0, 0) !important; }</style></head>
<body><h1>${req.url}</h1><div style="height: 3000px">A long page</div>
<script src="http://localhost:${port()}/public/widget.js" data-inbox="${inboxId}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

test('the in-app survey appears on a targeted third-party page after its delay and records the answers', async ({ page }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat' });
  inboxId = inbox.id;
  const { survey, version } = await publishedSurvey({
    accountId: a.account.id,
    actorId: a.owner.id,
    channel: 'in-app',
    types: ['text'],
    themeType: 'small',
    target: {
      showOnAllPages: false,
      allowedPages: [{ link: '/pricing', linkType: 'start' }],
      displayMethod: 'delay',
      displayDelay: 2,
      showUntilResponded: true,
    },
  });
  const modules: string[] = [];
  page.on('request', (req) => {
    if (req.url().includes('/public/widget-survey.js')) modules.push(req.url());
  });

  // A page the survey does not target: the widget loads, the survey module does not.
  await page.goto(`http://127.0.0.1:${sitePort}/about`);
  await expect(page.locator('[data-parley-widget]')).toBeAttached();
  await page.waitForTimeout(500);
  expect(modules).toEqual([]);

  // The site moves to a targeted address without a page load (a single-page site): the widget asks again.
  await page.evaluate(() => history.pushState({}, '', '/pricing/teams'));
  const started = Date.now();
  const box = page.locator('[data-parley-survey]');
  await expect(box.getByRole('dialog')).toBeVisible({ timeout: 8000 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(1800);
  expect(modules).toHaveLength(1);
  // The host page's CSS stays out of the shadow root.
  expect(await box.getByRole('button', { name: 'Start' }).evaluate((b) => getComputedStyle(b).color)).not.toBe('rgb(255, 0, 0)');

  await box.getByRole('button', { name: 'Start' }).click();
  await expect(box.getByText('1/2')).toBeVisible();
  await box.getByRole('button', { name: 'Next' }).click();
  await expect(box.getByText('This is a required question.')).toBeVisible();
  await box.getByRole('button', { name: '8', exact: true }).click();
  await box.getByRole('button', { name: 'Next' }).click();
  await expect(box.getByText('2/2')).toBeVisible();

  // The first answer was sent as it was given: a partial response already exists.
  const nps = questionOf(version!, 'nps').id;
  const text = questionOf(version!, 'text').id;
  await expect
    .poll(async () => (await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id)))[0]?.answers)
    .toEqual({ [nps]: 8 });
  await box.getByRole('textbox').fill('More seats please');
  await box.getByRole('button', { name: 'Submit' }).click();
  await expect(box.getByText('Thank you for finishing our Survey')).toBeVisible();
  await expect
    .poll(async () => (await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id)))[0])
    .toMatchObject({
      complete: true,
      channel: 'in-app',
      answers: { [nps]: 8, [text]: 'More seats please' },
      pageUrl: `http://127.0.0.1:${sitePort}/pricing/teams`,
    });
  const [row] = await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id));
  expect(row.widgetVisitorId).not.toBeNull();

  // Answered: the next visit to a targeted page shows no survey and fetches no module.
  await page.goto(`http://127.0.0.1:${sitePort}/pricing`);
  await expect(page.locator('[data-parley-widget]')).toBeAttached();
  await page.waitForTimeout(2500);
  await expect(page.locator('[data-parley-survey]')).toHaveCount(0);
  expect(modules).toHaveLength(1);
});

test('answers sent while the connection is down are retried until the server has them', async ({ page, context }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat' });
  inboxId = inbox.id;
  const { survey, version } = await publishedSurvey({ accountId: a.account.id, actorId: a.owner.id, channel: 'in-app', themeType: 'pop-over' });
  await page.goto(`http://127.0.0.1:${sitePort}/`);
  const box = page.locator('[data-parley-survey]');
  await expect(box.getByRole('dialog')).toBeVisible();
  await box.getByRole('button', { name: 'Start' }).click();
  // The survey's API goes away for a while (the connection dropped).
  let blocked = 0;
  await context.route('**/public/widget/survey/answer', (route) => {
    blocked++;
    return route.abort('internetdisconnected');
  });
  await box.getByRole('button', { name: '10', exact: true }).click();
  await box.getByRole('button', { name: 'Submit' }).click();
  await expect(box.getByText('Thank you for finishing our Survey')).toBeVisible();
  await expect.poll(() => blocked).toBeGreaterThanOrEqual(2);
  expect(await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id))).toEqual([]);
  await context.unroute('**/public/widget/survey/answer');
  await expect
    .poll(async () => (await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id)))[0], { timeout: 20_000 })
    .toMatchObject({ complete: true, answers: { [questionOf(version!, 'nps').id]: 10 } });
});

test('scroll depth and exit intent wait for the visitor; the corner box sits at the chosen side', async ({ page }) => {
  for (const method of ['scroll', 'exit'] as const) {
    const a = await createTestAccount();
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat' });
    inboxId = inbox.id;
    await publishedSurvey({
      accountId: a.account.id,
      actorId: a.owner.id,
      channel: 'in-app',
      themeType: 'small',
      target: { displayMethod: method, displayScroll: method === 'scroll' ? 50 : null },
    });
    await page.goto(`http://127.0.0.1:${sitePort}/`);
    await expect(page.locator('[data-parley-widget]')).toBeAttached();
    await page.waitForTimeout(1000);
    await expect(page.locator('[data-parley-survey]')).toHaveCount(0);
    if (method === 'scroll') await page.mouse.wheel(0, 2500);
    else await page.evaluate(() => document.dispatchEvent(new MouseEvent('mouseout', { clientY: 0, relatedTarget: null, bubbles: true })));
    const dialog = page.locator('[data-parley-survey]').getByRole('dialog');
    await expect(dialog).toBeVisible();
    const box = await dialog.boundingBox();
    // Position left (the default): the small box sits in the bottom-left corner.
    expect(box!.x).toBeLessThan(100);
  }
});
