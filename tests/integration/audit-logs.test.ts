import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import { changesOf, listAuditEntries, readAuditQuery } from '../../app/models/audit/audit-logs.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { createTestAccount, createTestUser, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie = owner) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie = owner) => app.request(path, { domain: a.domain, cookie, form });
  return { ...a, agent, agentCookie, get, post };
}

const settingsForm = { intent: 'save', name: 'Renamed Org', supportEmail: 'help@example.test', defaultTimezone: 'Europe/Paris', language: 'fr' };

describe('audit logs', () => {
  it('shows a settings change with who, before and after, and the request address', async () => {
    const a = await setup();
    expect((await a.post('/settings/account-settings', settingsForm)).status).toBe(302);
    const page = await a.get('/settings/audit-logs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Account updated');
    expect(page.text).toContain('Renamed Org');
    expect(page.text).toMatch(/<del>[^<]+<\/del> → <ins>Renamed Org<\/ins>/);
    expect(page.text).toContain('Europe/Paris');
    expect(page.text).toContain('127.0.0.1');
    const list = await listAuditEntries({ accountId: a.account.id, filters: { type: 'account_updated' }, page: 1 });
    expect(list.rows[0]).toMatchObject({ actorId: a.owner.id, subjectType: 'account' });
    expect(list.rows[0].ip).toContain('127.0.0.1');
    expect(list.rows[0].changes.find((c) => c.field === 'language')).toEqual({ field: 'language', before: null, after: 'fr' });
  });

  it('filters by actor, type, object and date, and exports the filtered CSV', async () => {
    const a = await setup();
    await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'vip', color: 'red' });
    await createTag({ accountId: a.account.id, actorId: a.agent.id, name: 'agent-tag', color: 'blue' });
    const byAgent = await a.get(`/settings/audit-logs?actor=${a.agent.id}`);
    expect(byAgent.text).toContain('Tag created');
    const rows = await listAuditEntries({ accountId: a.account.id, filters: { actor: String(a.agent.id) }, page: 1 });
    expect(rows.rows.every((r) => r.actorId === a.agent.id)).toBe(true);
    expect(rows.total).toBe(1);
    const byType = await listAuditEntries({ accountId: a.account.id, filters: { type: 'tag_created', subjectType: 'tag' }, page: 1 });
    expect(byType.total).toBe(2);
    const future = await listAuditEntries({ accountId: a.account.id, filters: { from: '2999-01-01' }, page: 1 });
    expect(future.total).toBe(0);
    const csv = await a.get(`/settings/audit-logs/export?type=tag_created`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toContain('When (UTC)');
    expect(lines).toHaveLength(3);
    expect(csv.text).toContain('Tag created');
  });

  it('enforces view_audit_logs and the auditLogs plan flag on the server', async () => {
    const a = await setup();
    expect((await a.get('/settings/audit-logs', a.agentCookie)).status).toBe(403);
    expect((await a.get('/settings/audit-logs/export', a.agentCookie)).status).toBe(403);
    await givePlan(a.account.id, { support: { enabled: true, auditLogs: false } });
    const denied = await a.get('/settings/audit-logs');
    expect(denied.status).toBe(403);
    expect(denied.text).toContain(FEATURE_DENIED_MESSAGE);
    expect((await a.get('/settings/audit-logs/export')).status).toBe(403);
    // Nothing in the app edits or deletes entries: the page has no action.
    expect((await a.post('/settings/audit-logs', { intent: 'delete' })).status).toBe(405);
  });

  it("never shows one account's entries to another", async () => {
    const a = await setup();
    const b = await setup();
    await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'secret-tag-a', color: 'red' });
    const seen = await b.get('/settings/audit-logs?type=tag_created');
    expect(seen.text).not.toContain('secret-tag-a');
    const foreignActor = await listAuditEntries({ accountId: b.account.id, filters: { actor: String(a.owner.id) }, page: 1 });
    expect(foreignActor.total).toBe(0);
    const csv = await b.get('/settings/audit-logs/export');
    expect(csv.text).not.toContain(String(a.domain));
    const all = await getDb().select().from(schema.domainEvents);
    expect(all.length).toBeGreaterThan(0);
  });

  it('POST audit-logs and POST qa-audit/trail-logs answer JSON with the screen filters and paging, guarded like the screen', async () => {
    const a = await setup();
    const b = await setup();
    const tag = await createTag({ accountId: a.account.id, actorId: a.owner.id, name: 'api-tag', color: 'red' });
    await createTag({ accountId: a.account.id, actorId: a.agent.id, name: 'other-tag', color: 'blue' });
    await createTag({ accountId: b.account.id, actorId: b.owner.id, name: 'b-tag', color: 'blue' });
    const list = await a.post('/audit-logs', { type: 'tag_created', pageSize: '1', page: '2' });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toContain('application/json');
    const body = JSON.parse(list.text) as { page: number; pageSize: number; total: number; entries: { type: string; actor: { id: number }; objectId: string }[] };
    expect(body).toMatchObject({ page: 2, pageSize: 1, total: 2 });
    expect(body.entries).toHaveLength(1);
    expect(body.entries[0].type).toBe('tag_created');
    const mine = JSON.parse((await a.post('/audit-logs', { actor: String(a.agent.id) })).text) as typeof body;
    expect(mine.entries.every((e) => e.actor.id === a.agent.id)).toBe(true);
    // The trail of one object; it needs the object.
    const trail = await a.post('/qa-audit/trail-logs', { object: 'tag', objectId: String(tag.id) });
    expect(trail.status).toBe(200);
    expect((JSON.parse(trail.text) as typeof body).entries.map((e) => e.objectId)).toEqual([String(tag.id)]);
    const noObject = await a.post('/qa-audit/trail-logs', { type: 'tag_created' });
    expect(noObject.status).toBe(400);
    expect(JSON.parse(noObject.text)).toEqual({ errorMessage: 'object and objectId are required' });
    // Bad filters are named, not ignored.
    expect(JSON.parse((await a.post('/audit-logs', { type: 'nope' })).text)).toEqual({ errorMessage: 'Unknown event type: nope' });
    expect((await a.post('/audit-logs', { from: '2026-13-45' })).status).toBe(400);
    expect((await a.post('/audit-logs', { pageSize: '1000' })).status).toBe(400);
    expect(readAuditQuery({ type: 'tag_created', page: 3 })).toMatchObject({ filters: { type: 'tag_created' }, page: 3, pageSize: 25 });
    // Another account's entries never come back; guards as on the screen; POST only.
    expect((JSON.parse((await b.post('/audit-logs', { type: 'tag_created' })).text) as typeof body).total).toBe(1);
    expect((await b.post('/qa-audit/trail-logs', { object: 'tag', objectId: String(tag.id) })).text).toContain('"total":0');
    expect((await a.post('/audit-logs', {}, a.agentCookie)).status).toBe(403);
    expect((await app.request('/audit-logs', { domain: a.domain, form: {} })).status).toBe(401);
    expect((await a.get('/audit-logs')).status).toBe(405);
    await givePlan(a.account.id, { support: { enabled: true, auditLogs: false } });
    const denied = await a.post('/qa-audit/trail-logs', { object: 'tag', objectId: String(tag.id) });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text)).toEqual({ errorMessage: FEATURE_DENIED_MESSAGE });
  });

  it('reads before and after from previousX pairs', () => {
    expect(changesOf({ name: 'b', previousName: 'a', color: 'red', previousColor: 'red' })).toEqual([{ field: 'name', before: 'a', after: 'b' }]);
  });
});
