import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkflow } from '../../app/models/automation/workflows.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { startVisitor } from '../../app/models/channels/widget.server';
import { listRoles } from '../../app/models/roles/roles.server';
import { createTeam } from '../../app/models/teams/teams.server';
import { inviteUser } from '../../app/models/users/invitations.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-getting-started-'));
process.env.PARLEY_DATA_DIR = dataDir;

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const stateOf = (html: string, key: string) => new RegExp(`data-done="(true|false)" data-testid="step-${key}"`).exec(html)?.[1];

describe('Getting Started', () => {
  it('is a checklist of what the account has done: channel, teammate, widget, workflow', async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const page = async () => {
      const res = await app.request('/getting-started', { domain, cookie });
      expect(res.status).toBe(200);
      return res.text;
    };
    let html = await page();
    expect(html).toContain('0 of 4 steps done.');
    for (const key of ['channel', 'invite', 'widget', 'workflow']) expect(stateOf(html, key), key).toBe('false');

    const inbox = await createWebInbox({ accountId: account.id, actorId: owner.id, name: 'Website' });
    html = await page();
    expect([stateOf(html, 'channel'), stateOf(html, 'widget')]).toEqual(['true', 'false']);
    expect(html).toContain('1 of 4 steps done.');

    const roles = await listRoles({ accountId: account.id });
    await inviteUser({ accountId: account.id, invitedById: owner.id, roleId: roles.find((r) => r.kind === 'agent')!.id, baseUrl: 'http://x.test', email: 'mate@x.test', firstName: 'Mate', lastName: 'T' });
    await startVisitor({ inbox });
    await createWorkflow({ accountId: account.id, actorId: owner.id, name: 'Tag VIPs', description: '' });
    html = await page();
    expect(html).toContain('All done.');
    for (const key of ['channel', 'invite', 'widget', 'workflow']) expect(stateOf(html, key), key).toBe('true');

    // Home shows the same checklist, and counts with the right plurals.
    await createTeam({ accountId: account.id, actorId: owner.id, name: 'Support', memberIds: [owner.id] });
    const home = (await app.request('/home', { domain, cookie })).text.replace(/<!-- -->/g, '');
    expect(home).toContain('data-testid="onboarding-checklist"');
    expect(home).toMatch(/2 users · 1 team · 3 roles/);
  });
});
