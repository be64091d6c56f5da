import crypto from 'node:crypto';
import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createArticle, listVersions } from '../../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { FEATURE_DENIED_MESSAGE } from '../../../app/models/plans/catalogue';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

test('a plan without version control, import/export and backup shows the locks, and the pages fall back with the plan message', async ({ page }) => {
  const a = await createTestAccount();
  const [plan] = await getDb()
    .insert(schema.plans)
    .values({ key: `kb-only-${crypto.randomBytes(4).toString('hex')}`, name: 'Knowledge base only', features: { knowledgeBase: { enabled: true } } })
    .returning();
  await getDb().update(schema.accounts).set({ planId: plan.id }).where(eq(schema.accounts.id, a.account.id));
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
  const article = await createArticle({ ...who, title: 'One', body: '<p>a</p>' });
  const [version] = (await listVersions({ ...who, articleId: article.id }))!.versions;

  await signIn(page, a);
  await page.goto(url(`/knowledgebase/${kb.id}/articles/${article.id}`, a.domain));
  const nav = page.getByRole('navigation', { name: 'Knowledge base' });
  for (const item of ['Version Control', 'Backup & Restore', 'Import & Export']) {
    await expect(nav.getByRole('link', { name: item }).getByRole('img', { name: 'Not in your plan' })).toBeVisible();
  }
  // Backup & Restore and Import & Export show their locked state (ADR 059; tests/e2e/knowledge-base/backup-import.spec.ts).
  for (const path of ['version-control', `articles/${article.id}/version/${version.id}`]) {
    // A page load falls back to the knowledge bases' list with the plan message (section 2).
    await page.goto(url(`/knowledgebase/${kb.id}/${path}`, a.domain));
    await expect(page, path).toHaveURL(/\/knowledgebase$/);
    await expect(page.getByText(FEATURE_DENIED_MESSAGE).first()).toBeVisible();
  }
});
