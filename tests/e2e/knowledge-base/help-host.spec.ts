import { expect, test } from '@playwright/test';
import { setAccountPlan } from '../../../app/models/accounts/accounts.server';
import { createArticle } from '../../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const port = () => new URL(url('/')).port;

test('help-centre settings without JavaScript: each message, the custom JavaScript plan lock, then the help host runs the custom code', async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const article = await createArticle({ accountId: a.account.id, actorId: a.owner.id, knowledgeBaseId: kb.id, title: 'Reset a password', body: '<p>Choose Forgot password.</p>', publish: true });
  await signIn(page, a);

  // General: name 3 to 30, a valid domain or none.
  await page.goto(url(`/knowledgebase/${kb.id}/general`, a.domain));
  await page.getByLabel('Help Center Name').fill('ab');
  await page.getByLabel('Custom domain (CNAME)').fill('not a domain');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Length must be at least 3 characters')).toBeVisible();
  await expect(fieldError(page, 'Enter a valid domain, e.g. help.example.com')).toBeVisible();
  await page.getByLabel('Help Center Name').fill('H'.repeat(31));
  await page.getByLabel('Custom domain (CNAME)').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 30 characters')).toBeVisible();
  await page.getByLabel('Help Center Name').fill('Acme Answers');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  await expect(page.getByLabel('Help Center Name')).toHaveValue('Acme Answers');

  // SEO: the Google Analytics key and the title/description bounds.
  await page.goto(url(`/knowledgebase/${kb.id}/seo`, a.domain));
  await page.getByLabel('Google Analytics Key').fill('12-abc');
  await page.getByLabel('SEO Title').fill('x'.repeat(71));
  await page.getByLabel('SEO Description').fill('x');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Enter Valid Google Analytics Key')).toBeVisible();
  await expect(fieldError(page, 'Length must be less than or equal to 70 characters')).toBeVisible();
  await expect(fieldError(page, 'Length must be at least 3 characters')).toBeVisible();

  // Redirect Rules: a loop is refused with its chain; a rule answers 301.
  await page.goto(url(`/knowledgebase/${kb.id}/redirect-rules`, a.domain));
  await page.getByLabel('Source').fill('/old-guide');
  await page.getByLabel('Destination').fill(`/articles/${article.id}-reset-a-password`);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Redirect Rule Created');
  await page.getByLabel('Source').fill(`/articles/${article.id}-reset-a-password`);
  await page.getByLabel('Destination').fill('/old-guide');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(fieldError(page, 'This rule would make a redirect loop')).toBeVisible();
  const statuses: number[] = [];
  page.on('response', (r) => (r.url().endsWith('/old-guide') ? statuses.push(r.status()) : undefined));
  await page.goto(url(`/hc/${kb.slug}/old-guide`, a.domain));
  await expect(page).toHaveURL(new RegExp(`/hc/${kb.slug}/articles/${article.id}-reset-a-password$`));
  expect(statuses).toEqual([301]);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reset a password');

  // Custom CSS & JS: locked on a plan without customJavascript (the page says so, the form is disabled).
  await setAccountPlan({ domain: a.domain, planKey: 'starter' });
  await page.goto(url(`/knowledgebase/${kb.id}/custom-css-js`, a.domain));
  await expect(page.getByTestId('plan-locked')).toHaveText(/Your current plan does not support this feature/);
  await expect(page.getByLabel('Custom JavaScript')).toBeDisabled();
  // The server refuses too: a form loaded while the plan allowed it, submitted after a downgrade.
  await setAccountPlan({ domain: a.domain, planKey: 'enterprise' });
  await page.reload();
  await page.getByLabel('Custom JavaScript').fill('document.title = "x";');
  await setAccountPlan({ domain: a.domain, planKey: 'starter' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your current plan does not support this feature. Please contact your account administrator.')).toBeVisible();

  await setAccountPlan({ domain: a.domain, planKey: 'enterprise' });
  await page.goto(url(`/knowledgebase/${kb.id}/custom-css-js`, a.domain));
  await expect(page.getByLabel('Custom JavaScript')).toHaveValue('');
  await page.getByLabel('Custom CSS').fill('.hc-header { border-bottom: 4px solid rgb(200, 0, 0); }');
  await page.getByLabel('Custom JavaScript').fill('document.body.dataset.custom = "ran";');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');

  // The public page on the help host, with JavaScript on there (custom code is the only script), served without the agent cookie.
  const visitor = await context.browser()!.newContext({ javaScriptEnabled: true });
  const pub = await visitor.newPage();
  const errors: string[] = [];
  pub.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
  await pub.goto(`http://${kb.slug}.help.localhost:${port()}/`);
  await expect(pub.getByRole('link', { name: 'Acme Answers' })).toBeVisible();
  await pub.getByRole('link', { name: 'Reset a password' }).click();
  await expect(pub).toHaveURL(new RegExp(`/articles/${article.id}-reset-a-password$`));
  await expect(pub.getByRole('heading', { level: 1 })).toHaveText('Reset a password');
  await expect(pub.locator('body')).toHaveAttribute('data-custom', 'ran');
  await expect(pub.locator('.hc-header')).toHaveCSS('border-bottom-color', 'rgb(200, 0, 0)');
  expect(errors).toEqual([]);
  // The same article on the account host runs no custom code.
  const agentHostPage = await visitor.newPage();
  await agentHostPage.goto(url(`/hc/${kb.slug}/articles/${article.id}-reset-a-password`, a.domain));
  await expect(agentHostPage.getByRole('heading', { level: 1 })).toHaveText('Reset a password');
  await expect(agentHostPage.locator('body')).not.toHaveAttribute('data-custom', 'ran');
  await visitor.close();
});
