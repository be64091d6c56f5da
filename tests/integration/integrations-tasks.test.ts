import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { getOpenConnection } from '../../app/models/integrations/connections.server';
import { asanaPanelFor, parseAsanaTaskRef } from '../../app/models/integrations/asana/asana.server';
import { clickupPanelFor, parseClickupTaskRef } from '../../app/models/integrations/clickup/clickup.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { startTestApp } from '../helpers/http';
import { captureLogs, integrationAccount } from '../helpers/integrations';
import { startAsanaStandIn } from '../helpers/asana-standin';
import { startClickupStandIn } from '../helpers/clickup-standin';

let app: Awaited<ReturnType<typeof startTestApp>>;
let asana: Awaited<ReturnType<typeof startAsanaStandIn>>;
let clickup: Awaited<ReturnType<typeof startClickupStandIn>>;
const ENV = ['ASANA_CLIENT_ID', 'ASANA_CLIENT_SECRET', 'ASANA_OAUTH_BASE', 'ASANA_API_BASE', 'CLICKUP_CLIENT_ID', 'CLICKUP_CLIENT_SECRET', 'CLICKUP_OAUTH_BASE', 'CLICKUP_API_BASE', 'PARLEY_SECRET_KEY'];
/** Parley builds webhook addresses from the account's public host; the stand-ins reach it on loopback instead. */
let logs: ReturnType<typeof captureLogs>;
const loopback = (u: string) => u.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${app.port}`);

beforeAll(async () => {
  asana = await startAsanaStandIn({ clientId: 'asana-client', clientSecret: 'asana-secret', rewriteTarget: (u) => loopback(u) });
  clickup = await startClickupStandIn({ clientId: 'clickup-client', clientSecret: 'clickup-secret' });
  Object.assign(process.env, {
    ASANA_CLIENT_ID: 'asana-client',
    ASANA_CLIENT_SECRET: 'asana-secret',
    ASANA_OAUTH_BASE: asana.base,
    ASANA_API_BASE: asana.apiBase,
    CLICKUP_CLIENT_ID: 'clickup-client',
    CLICKUP_CLIENT_SECRET: 'clickup-secret',
    CLICKUP_OAUTH_BASE: clickup.base,
    CLICKUP_API_BASE: clickup.apiBase,
    PARLEY_SECRET_KEY: 'b'.repeat(64),
  });
  resetSingleton('config');
  logs = captureLogs();
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await asana?.close();
  await clickup?.close();
  for (const k of ENV) delete process.env[k];
  logs?.restore();
  resetSingleton('config');
});

const setup = () => integrationAccount(app, { subject: 'Refund never arrived', contact: { name: 'Dana Doe' }, message: 'Still waiting' });
type Setup = Awaited<ReturnType<typeof setup>>;

async function connect(s: Setup, provider: 'asana' | 'clickup') {
  const start = await s.post(`/settings/integrations/${provider}`, { intent: 'connect' });
  expect(start.status).toBe(302);
  const res = await fetch(start.headers.location!, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  const done = await s.get(`${back.pathname}${back.search}`);
  expect(done.headers.location).toBe(`/settings/integrations/${provider}`);
}

const notes = (s: Setup) => getDb().select().from(schema.messages).where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'note')));
const status = async (s: Setup) => (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, s.conversation.id)))[0].status;

describe('Asana', () => {
  it('creates a task from a conversation; the handshake and the signed completion note and reopen it', async () => {
    const s = await setup();
    await connect(s, 'asana');
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'asana' }))!;
    expect(conn.externalAccount).toBe('asa@acme.test');
    expect(conn.refreshToken).toMatch(/^asana_rt_/);
    const page = `/inbox/${s.conversation.id}/tasks/asana`;
    const form = await s.get(page);
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="Refund never arrived"');
    expect(form.text).toContain('Acme');
    const bad = await s.post(page, { intent: 'create', name: 'Refund', project: 'abc', assignee: 'not an assignee' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Project must be an Asana ID (digits)');
    expect(bad.text).toContain('Assignee must be');
    expect(bad.text).toContain('value="Refund"');
    expect(form.text).toContain('>Due date</label>');
    const badDue = await s.post(page, { intent: 'create', name: 'Refund', workspace: '1100000000000001', dueOn: '2026-02-30' });
    expect(badDue.status).toBe(400);
    expect(badDue.text).toContain('Due date must be a date');
    const res = await s.post(page, { intent: 'create', name: 'Refund missing', notes: 'Customer waits since May', workspace: '1100000000000001', project: '', assignee: 'me', dueOn: '2026-12-24', reopenOnClose: 'on' });
    expect(res.status).toBe(302);
    const task = asana.tasks.at(-1)!;
    expect(task.dueOn).toBe('2026-12-24');
    expect(task.notes).toContain(`/inbox/${s.conversation.id}`);
    expect(task.assignee).toBe('me');
    expect(task.workspace).toBe('1100000000000001');
    expect(asana.hooks.filter((h) => h.resource === task.gid)).toHaveLength(1);
    const view = await s.get(`/inbox/${s.conversation.id}`);
    expect(view.text).toContain('data-testid="asana-panel"');
    expect(view.text).toContain('Refund missing');

    await s.post(`/inbox/${s.conversation.id}`, { intent: 'status', status: 'resolved' });
    expect(await asana.setCompleted(task.gid, true, 'forged-secret')).toEqual([401]);
    expect(await status(s)).toBe('resolved');
    expect(await asana.heartbeat(task.gid)).toEqual([200]);
    expect(await asana.setCompleted(task.gid, true)).toEqual([200]);
    expect((await notes(s)).some((n) => n.text === 'Asana task "Refund missing" was completed')).toBe(true);
    expect(await status(s)).toBe('open');
    const count = (await notes(s)).length;
    expect(await asana.setCompleted(task.gid, true)).toEqual([200]);
    expect((await notes(s)).length).toBe(count);
    const panel = await asanaPanelFor({ accountId: s.account.id, conversationId: s.conversation.id });
    expect(panel.connected && panel.links[0].status).toBe('closed');
    // Uncompleted in Asana: the link is open again.
    expect(await asana.setCompleted(task.gid, false)).toEqual([200]);
    const again = await asanaPanelFor({ accountId: s.account.id, conversationId: s.conversation.id });
    expect(again.connected && again.links[0].status).toBe('open');
  });

  it('refuses a handshake nobody asked for, links by address, refreshes tokens, and revokes on disconnect', async () => {
    const s = await setup();
    await connect(s, 'asana');
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'asana' }))!;
    const stranger = await asana.handshake(`http://127.0.0.1:${app.port}/webhooks/integrations/asana/${conn.id}/1234`);
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get('x-hook-secret')).toBeNull();

    const other = await setup();
    await connect(other, 'asana');
    await other.post(`/inbox/${other.conversation.id}/tasks/asana`, { intent: 'create', name: 'Their task', workspace: '1100000000000001' });
    const theirs = asana.tasks.at(-1)!;
    // The task's address works; the token is refreshed first when it is about to expire.
    asana.expireTokens();
    await getDb().update(schema.integrationConnections).set({ tokenExpiresAt: new Date(Date.now() - 1000) }).where(eq(schema.integrationConnections.accountId, s.account.id));
    const before = asana.refreshedCount();
    const linked = await s.post(`/inbox/${s.conversation.id}/tasks/asana`, { intent: 'link', ref: `https://app.asana.com/0/0/${theirs.gid}/f` });
    expect(linked.status).toBe(302);
    expect(asana.refreshedCount()).toBe(before + 1);
    const dup = await s.post(`/inbox/${s.conversation.id}/tasks/asana`, { intent: 'link', ref: theirs.gid });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('is already linked to this conversation');
    // Both accounts linked the task: each has its own webhook and secret; completing it notes both.
    expect(asana.hooks.filter((h) => h.resource === theirs.gid)).toHaveLength(2);
    expect(await asana.setCompleted(theirs.gid)).toEqual([200, 200]);
    expect((await notes(s)).some((n) => n.text === 'Asana task "Their task" was completed')).toBe(true);
    expect((await notes(other)).some((n) => n.text === 'Asana task "Their task" was completed')).toBe(true);
    // Another account cannot act on this conversation; an agent without perform_data_specific_action neither.
    expect((await other.post(`/inbox/${s.conversation.id}/tasks/asana`, { intent: 'link', ref: theirs.gid })).status).toBe(404);
    expect((await s.post(`/inbox/${s.conversation.id}/tasks/asana`, { intent: 'link', ref: theirs.gid }, s.agentCookie)).status).toBe(403);
    expect((await s.get(`/inbox/${s.conversation.id}`, s.agentCookie)).text).not.toContain('data-testid="asana-panel"');
    const revokedBefore = asana.revokedCount();
    expect((await s.post('/settings/integrations/asana', { intent: 'disconnect' })).status).toBe(302);
    expect(asana.revokedCount()).toBe(revokedBefore + 1);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'asana' })).toBeNull();
  });

  it('reads task references', () => {
    expect(parseAsanaTaskRef('1204567890')).toBe('1204567890');
    expect(parseAsanaTaskRef('https://app.asana.com/0/111/222')).toBe('222');
    expect(parseAsanaTaskRef('https://app.asana.com/1/333/project/444/task/555')).toBe('555');
    expect(parseAsanaTaskRef('https://evil.test/0/1/2')).toBeNull();
  });
});

describe('ClickUp', () => {
  it('creates a task in a list; a signed move to a closed status notes and reopens; forged ones are refused', async () => {
    const s = await setup();
    await connect(s, 'clickup');
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'clickup' }))!;
    expect(conn.externalAccount).toBe('cleo@acme.test');
    const page = `/inbox/${s.conversation.id}/tasks/clickup`;
    const bad = await s.post(page, { intent: 'create', listId: 'inbox', name: 'Refund' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('List ID must be a ClickUp list ID (digits)');
    expect(bad.text).toContain('value="inbox"');
    const unknown = await s.post(page, { intent: 'create', list: '42', name: 'Refund' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('ClickUp answered: List not found');
    const res = await s.post(page, { intent: 'create', list: '901100', name: 'Refund missing', description: 'Since May', assignee: '183', reopenOnClose: 'on' });
    expect(res.status).toBe(302);
    const task = clickup.tasks.at(-1)!;
    expect(task.description).toContain(`/inbox/${s.conversation.id}`);
    expect(task.assignees).toEqual([183]);
    expect(clickup.hooks.filter((h) => h.endpoint.endsWith(`/webhooks/integrations/clickup/${conn.id}`))).toHaveLength(1);
    expect((await s.get(`/inbox/${s.conversation.id}`)).text).toContain('data-testid="clickup-panel"');

    await s.post(`/inbox/${s.conversation.id}`, { intent: 'status', status: 'resolved' });
    expect(await clickup.setStatus(task.id, 'complete', 'closed', { secret: 'forged', rewrite: loopback })).toEqual([401]);
    expect(await status(s)).toBe('resolved');
    expect(await clickup.setStatus(task.id, 'in review', 'custom', { rewrite: loopback })).toEqual([200]);
    expect((await notes(s)).some((n) => n.text.includes('ClickUp task'))).toBe(false);
    expect(await clickup.setStatus(task.id, 'complete', 'closed', { rewrite: loopback })).toEqual([200]);
    expect((await notes(s)).some((n) => n.text === 'ClickUp task "Refund missing" was moved to complete by Max Maintainer')).toBe(true);
    expect(await status(s)).toBe('open');
    // A second list of the same workspace does not add a webhook.
    await s.post(page, { intent: 'create', list: '901101', name: 'Second' });
    expect(clickup.hooks.filter((h) => h.endpoint.endsWith(`/webhooks/integrations/clickup/${conn.id}`))).toHaveLength(1);
    // Refresh reads the status back.
    clickup.tasks.at(-1)!.type = 'done';
    expect((await s.post(page, { intent: 'refresh' })).status).toBe(302);
    const panel = await clickupPanelFor({ accountId: s.account.id, conversationId: s.conversation.id });
    expect(panel.connected && panel.links.map((l) => l.status).sort()).toEqual(['closed', 'closed']);
  });

  it('links by address, needs the permission, and deletes its webhooks on disconnect', async () => {
    const s = await setup();
    await connect(s, 'clickup');
    await s.post(`/inbox/${s.conversation.id}/tasks/clickup`, { intent: 'create', list: '901100', name: 'First' });
    const t = clickup.tasks.at(-1)!;
    const { conversation } = await openConversation({ accountId: s.account.id, inboxId: s.conversation.inboxId, sourceType: 'email', subject: 'Second', contact: { email: `x@${s.domain}.test`, name: 'X' }, message: { kind: 'incoming', text: 'x' } });
    expect((await s.post(`/inbox/${conversation.id}/tasks/clickup`, { intent: 'link', ref: `https://app.clickup.com/t/${t.id}` })).status).toBe(302);
    expect((await s.post(`/inbox/${conversation.id}/tasks/clickup`, { intent: 'link', ref: 'https://evil.test/t/x' })).status).toBe(400);
    expect((await s.post(`/inbox/${conversation.id}/tasks/clickup`, { intent: 'link', ref: t.id }, s.agentCookie)).status).toBe(403);
    expect((await s.get('/settings/integrations/clickup', s.agentCookie)).status).toBe(403);
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'clickup' }))!;
    const mine = clickup.hooks.filter((h) => h.endpoint.endsWith(`/clickup/${conn.id}`)).map((h) => h.id);
    expect((await s.post('/settings/integrations/clickup', { intent: 'disconnect' })).status).toBe(302);
    expect(clickup.deletedHooks).toEqual(expect.arrayContaining(mine));
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'clickup' })).toBeNull();
    expect(parseClickupTaskRef('https://app.clickup.com/t/9011/abc123')).toBe('abc123');
  });
});

describe('settings pages', () => {
  it('save defaults and answer bad input with field errors', async () => {
    const s = await setup();
    await connect(s, 'asana');
    await connect(s, 'clickup');
    const page = await s.get('/settings/integrations/asana');
    expect(page.text).toContain('asa@acme.test');
    expect(page.text).not.toContain('not available yet');
    expect((await s.post('/settings/integrations/asana', { intent: 'settings', defaultWorkspace: '999', defaultProject: '' })).status).toBe(400);
    expect((await s.post('/settings/integrations/asana', { intent: 'settings', defaultWorkspace: '1100000000000001', defaultProject: '77', reopenOnClose: 'on' })).status).toBe(302);
    expect((await s.get(`/inbox/${s.conversation.id}/tasks/asana`)).text).toContain('value="77"');
    const bad = await s.post('/settings/integrations/clickup', { intent: 'settings', defaultList: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('List must be a ClickUp list ID (digits)');
    expect((await s.post('/settings/integrations/clickup', { intent: 'settings', defaultList: '901100' })).status).toBe(302);
    expect((await s.get(`/inbox/${s.conversation.id}/tasks/clickup`)).text).toContain('value="901100"');
    // No token or secret on the pages.
    const conn = (await getOpenConnection({ accountId: s.account.id, provider: 'asana' }))!;
    expect(page.text).not.toContain(conn.accessToken);
  });
});

describe('pickers (ADR 118)', () => {
  it('list Asana projects of the chosen workspace and ClickUp Workspaces → Spaces → lists as plain selects, a typed ID still accepted', async () => {
    const s = await setup();
    await connect(s, 'asana');
    await connect(s, 'clickup');
    // Asana: the default workspace's projects are listed, by name.
    const asanaPage = `/inbox/${s.conversation.id}/tasks/asana`;
    const form = await s.get(asanaPage);
    expect(form.text).toContain('<option value="1300000000000001">Customer escalations</option>');
    expect(form.text).toContain('Show projects');
    // "Show projects" is a GET with the form's fields: what was typed comes back.
    const shown = await s.get(`${asanaPage}?workspace=1100000000000001&project=&projectId=&name=Typed+name&notes=Typed+notes&assignee=me`);
    expect(shown.text).toContain('value="Typed name"');
    expect(shown.text).toContain('Typed notes');
    expect(shown.text).toContain('value="me"');
    // The picked project is used; a typed ID wins over the picker.
    expect((await s.post(asanaPage, { intent: 'create', name: 'Picked', workspace: '1100000000000001', project: '1300000000000002' })).status).toBe(302);
    expect(asana.tasks.at(-1)!.projects).toEqual(['1300000000000002']);
    expect((await s.post(asanaPage, { intent: 'create', name: 'Typed', workspace: '1100000000000001', project: '1300000000000002', projectId: '1300000000000001' })).status).toBe(302);
    expect(asana.tasks.at(-1)!.projects).toEqual(['1300000000000001']);
    const badId = await s.post(asanaPage, { intent: 'create', name: 'Typed', projectId: 'x1' });
    expect(badId.status).toBe(400);
    expect(badId.text).toContain('Project ID must be an Asana ID (digits)');
    // Settings: the default project from the picker.
    expect((await s.post('/settings/integrations/asana', { intent: 'settings', defaultWorkspace: '1100000000000001', defaultProject: '1300000000000002' })).status).toBe(302);
    expect((await s.get('/settings/integrations/asana')).text).toMatch(/<option value="1300000000000002" selected="">Bugs<\/option>/);

    // ClickUp: the only Workspace is taken; its Spaces listed; the lists of the chosen Space (folders' and folderless).
    const clickupPage = `/inbox/${s.conversation.id}/tasks/clickup`;
    const first = await s.get(clickupPage);
    expect(first.text).toContain('<option value="790001">Support</option>');
    expect(first.text).not.toContain('Bugs from customers');
    const lists = await s.get(`${clickupPage}?team=9011&space=790001&list=&listId=&name=Refund`);
    expect(lists.text).toContain('<option value="901100">Escalations › Bugs from customers</option>');
    expect(lists.text).toContain('<option value="901101">Feature requests</option>');
    expect((await s.post(clickupPage, { intent: 'create', team: '9011', space: '790001', list: '901101', name: 'From the picker' })).status).toBe(302);
    expect(clickup.tasks.at(-1)).toMatchObject({ name: 'From the picker', listId: '901101' });
    expect((await s.post(clickupPage, { intent: 'create', list: '901101', listId: '901100', name: 'Typed list' })).status).toBe(302);
    expect(clickup.tasks.at(-1)).toMatchObject({ name: 'Typed list', listId: '901100' });
    const none = await s.post(clickupPage, { intent: 'create', name: 'Nowhere' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('List is required');
    // A Space ClickUp does not know: said on the page, the typed ID still there.
    const unknown = await s.get(`${clickupPage}?team=9011&space=790002`);
    expect(unknown.text).toContain('No lists listed');
    // Settings: the default Workspace, Space and list open the picker where they were.
    expect((await s.post('/settings/integrations/clickup', { intent: 'settings', defaultTeam: '9011', defaultSpace: '790001', defaultList: '901100' })).status).toBe(302);
    const settings = await s.get('/settings/integrations/clickup');
    expect(settings.text).toMatch(/<option value="790001" selected="">Support<\/option>/);
    expect(settings.text).toMatch(/<option value="901100" selected="">Escalations › Bugs from customers<\/option>/);
    expect((await s.get(clickupPage)).text).toMatch(/<option value="901100" selected="">/);
  });
});

describe('secrets', () => {
  it('never writes a token, a client secret or a hook secret to the log', () => {
    const secrets = [...asana.tokens.keys(), ...clickup.tokens, ...asana.hooks.map((h) => h.secret), ...clickup.hooks.map((h) => h.secret), 'asana-secret', 'clickup-secret'];
    expect(logs.lines.length).toBeGreaterThan(0);
    const log = logs.lines.join('\n');
    for (const s of secrets) expect(log).not.toContain(s);
    expect(log).not.toMatch(/asana_(at|rt)_[0-9a-f]{32}/);
  });
});
