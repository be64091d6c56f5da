import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

/**
 * Denials a route decides itself (a permission checked after loading the record): a page load falls back to the
 * area's list with the denial as a toast (section 2), a form post keeps its 403, and an area's own landing page
 * (Analytics opens on its overview) shows the 403 in place rather than sending the user round in a circle; a chain of
 * fallbacks ends at Home.
 */
let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('route-checked denials', () => {
  it('fall back on a page load, keep the 403 on a post and on the area landing', async () => {
    const a = await createTestAccount();
    const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Guides' });
    const [bare] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Bare', permissions: [] }).returning();
    const user = await createTestUser({ accountId: a.account.id, roleId: bare.id });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: user.id });
    const html = 'text/html,application/xhtml+xml';

    const page = await app.request(`/knowledgebase/${kb.id}/articles`, { domain: a.domain, cookie, accept: html });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe('/knowledgebase');
    // The toast travels in the session's flash cookie, not in the address.
    expect(String(page.headers['set-cookie'])).not.toBe('undefined');

    const post = await app.request(`/knowledgebase/${kb.id}/articles`, { domain: a.domain, cookie, form: { intent: 'create' } });
    expect(post.status).toBe(403);

    // A fallback chain ends: a report page refused by the plan falls back to Analytics, which falls back to Home.
    const report = await app.request('/analytics/overview', { domain: a.domain, cookie, accept: html });
    const area = await app.request('/analytics', { domain: a.domain, cookie, accept: html });
    if (report.status === 302) {
      expect(report.headers.location).toBe('/analytics');
      expect(area.headers.location).toBe('/home');
    } else {
      // With the plan's Analytics, a role without the page's reports permission sees the 403 in place.
      expect(report.status).toBe(403);
    }
  });
});
