import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createSource } from '../../../app/models/reviews/reviews.server';
import { createTestAccount } from '../../factories';
import { startGoogleCalendarStandIn } from '../../helpers/stand-ins/google-calendar';
import { signIn, url } from '../helpers';

/**
 * A Google Business Profile source's consent flow with JavaScript off (ADR 096): Connect with Google -> Google's
 * consent page (the stand-in the meetings spec runs on the fixed E2E_GOOGLE_PORT the Parley under test calls; it
 * approves at once) -> the callback -> connected; then Disconnect, which forgets the tokens and revokes the grant.
 */
test.use({ javaScriptEnabled: false });

let google: Awaited<ReturnType<typeof startGoogleCalendarStandIn>>;
test.beforeAll(async ({}, info) => {
  // The meetings spec may hold the fixed port while its tests run: wait for it, then hold it for this one test.
  info.setTimeout(180_000);
  google = await startGoogleCalendarStandIn({ port: Number(process.env.E2E_GOOGLE_PORT), clientId: 'parley-e2e.apps.googleusercontent.com', clientSecret: 'e2e-secret', email: 'owner@business.test', waitForPortMs: 150_000 });
});
test.afterAll(async () => {
  await google?.close();
});

test('connect a Google review source through the consent page and disconnect it (no JavaScript)', async ({ page }) => {
  const a = await createTestAccount();
  const source = await createSource({
    accountId: a.account.id,
    actorId: a.owner.id,
    input: { kind: 'google', name: 'Google profile', reviewUrl: 'https://g.page/r/parley-e2e/review', locationName: 'accounts/1/locations/2', businessUnitId: null, apiKey: null, accessToken: null },
  });
  await signIn(page, a);
  await page.goto(url(`/settings/sources?source=${source.id}`, a.domain));
  await expect(page.getByTestId('google-connection')).toContainText('Not connected');

  await page.getByRole('button', { name: 'Connect with Google' }).click();
  // Parley -> Google's consent page -> /settings/sources/google?code&state -> back to the source.
  await expect(page).toHaveURL(url(`/settings/sources?source=${source.id}`, a.domain));
  await expect(page.getByText('Google connected')).toBeVisible();
  await expect(page.getByTestId('google-connection')).toContainText('Connected to Google as owner@business.test');
  const [connected] = await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.id, source.id));
  // Sealed at rest: neither token is readable in the row.
  expect(JSON.stringify(connected.config)).not.toMatch(/1\/\/[0-9a-f]{32}|ya29\./);
  expect(connected.config).toHaveProperty('refreshToken');

  await page.getByRole('button', { name: 'Disconnect Google' }).click();
  await expect(page.getByText('Google disconnected', { exact: true })).toBeVisible();
  await expect(page.getByTestId('google-connection')).toContainText('Not connected');
  const [after] = await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.id, source.id));
  expect(after.config).not.toHaveProperty('refreshToken');
  expect(after.config).not.toHaveProperty('accessToken');
  expect(google.revokedCount()).toBe(1);
});
