import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { helpCentreAddress } from '../../app/models/knowledge-base/help-host.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { readLastKnowledgeBase, rememberKnowledgeBase } from '../../app/models/knowledge-base/last-opened.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

// The help centres' own host for this file only (ADR 056); read by the app's config on first use.
process.env.HELP_HOST = 'help.test:3000';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  ([] as string[])
    .concat(setCookie ?? [])
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith(`${name}=`));

describe('knowledge base Preview and the remembered knowledge base (section 2)', () => {
  it('Preview opens the custom domain when set, otherwise the help subdomain', async () => {
    const request = new Request('http://acme.localhost:3000/knowledgebase/1/articles');
    expect(helpCentreAddress(request, 'acme', { slug: 'acme-help', cname: null })).toBe('http://acme-help.help.test:3000/');
    expect(helpCentreAddress(request, 'acme', { slug: 'acme-help', cname: 'Docs.Acme.test' })).toBe('http://docs.acme.test/');
  });

  it('the remembered knowledge base belongs to the user who chose it; a tampered cookie is ignored', async () => {
    const token = await rememberKnowledgeBase({ userId: 7, kb: { id: 12, name: 'Help' } });
    const req = (cookie: string) => new Request('http://x.localhost/', { headers: { cookie } });
    expect(await readLastKnowledgeBase(req(token.split(';')[0]), 7)).toEqual({ id: 12, name: 'Help' });
    expect(await readLastKnowledgeBase(req(token.split(';')[0]), 8)).toBeNull();
    expect(await readLastKnowledgeBase(req('__parley_kb=eyJ1Ijo3LCJpZCI6MTIsIm5hbWUiOiJIZWxwIn0%3D'), 7)).toBeNull();
    expect(await readLastKnowledgeBase(req(''), 7)).toBeNull();
  });

  it('opening a knowledge base remembers it; the list offers it first, to that user only; the shell links Preview to the custom domain', async () => {
    const a = await createTestAccount();
    const who = { accountId: a.account.id, actorId: a.owner.id };
    await createKnowledgeBase({ ...who, name: 'Product docs' });
    const kb = await createKnowledgeBase({ ...who, name: 'Billing help' });
    await getDb().update(schema.knowledgeBases).set({ cname: 'billing.acme.test' }).where(eq(schema.knowledgeBases.id, kb.id));
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });

    const before = await app.request('/knowledgebase', { domain: a.domain, cookie });
    expect(before.text).not.toContain('data-testid="kb-last"');
    const opened = await app.request(`/knowledgebase/${kb.id}/articles`, { domain: a.domain, cookie });
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('href="http://billing.acme.test/"');
    const remembered = cookieOf(opened.headers['set-cookie'], '__parley_kb');
    expect(remembered).toBeTruthy();
    const list = await app.request('/knowledgebase', { domain: a.domain, cookie: `${cookie}; ${remembered}` });
    expect(list.text).toMatch(/data-testid="kb-last".*Billing help/s);

    // Another user signing in on the same browser does not inherit it.
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    const theirs = await app.request('/knowledgebase', { domain: a.domain, cookie: `${agentCookie}; ${remembered}` });
    expect(theirs.text).not.toContain('data-testid="kb-last"');
  });
});
