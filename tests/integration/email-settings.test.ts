import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { getEmailInbox, readEmailSettings } from '../../app/models/email/email-inboxes.server';
import { ConfigError, parseConfig } from '../../app/utils/env.server';
import { TrustedDomainSchema } from '../../app/models/email/schemas';
import { getTrustedDomain, listTrustedDomains } from '../../app/models/email/trusted-domains.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-settings-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  return {
    ...a,
    ownerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    agentCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id }),
  };
}

/** Follows a redirect the way a browser would, carrying the toast cookie, and returns the page's HTML. */
async function follow(res: { status: number; headers: Record<string, unknown> }, domain: string, cookie: string) {
  expect(res.status).toBe(302);
  const setCookies = ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []);
  const toast = setCookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('__parley_toast='));
  const page = await app.request(String(res.headers.location), { domain, cookie: [cookie, toast].filter(Boolean).join('; ') });
  return page.text;
}

const eventTypes = async (accountId: number) =>
  (await getDb().select({ type: schema.domainEvents.type }).from(schema.domainEvents).where(eq(schema.domainEvents.accountId, accountId)).orderBy(schema.domainEvents.id)).map((e) => e.type);

describe('configuration', () => {
  it('SMTP_INBOUND_PORT defaults to 2525 (0 = off); INBOUND_EMAIL_DOMAIN to the host of APP_HOST', () => {
    const base = { PARLEY_DATA_DIR: dataDir, SESSION_SECRET: 'x'.repeat(32) };
    expect(parseConfig({ ...base, APP_HOST: 'Parley.Example.com:8443' })).toMatchObject({ smtpInboundPort: 2525, inboundEmailDomain: 'parley.example.com' });
    expect(parseConfig({ ...base, SMTP_INBOUND_PORT: '0', INBOUND_EMAIL_DOMAIN: 'Mail.Example.com' })).toMatchObject({
      smtpInboundPort: 0,
      inboundEmailDomain: 'mail.example.com',
    });
    const problems = (env: Record<string, string>) => {
      try {
        parseConfig({ ...base, ...env });
      } catch (err) {
        if (err instanceof ConfigError) return err.problems;
      }
      return [];
    };
    expect(problems({ SMTP_INBOUND_PORT: 'smtp' })).toEqual(['SMTP_INBOUND_PORT: SMTP_INBOUND_PORT must be a number (0 turns the inbound mail server off)']);
    expect(problems({ SMTP_INBOUND_PORT: '70000' })).toEqual(['SMTP_INBOUND_PORT: SMTP_INBOUND_PORT must be between 0 and 65535']);
    expect(problems({ INBOUND_EMAIL_DOMAIN: 'not a domain' })[0]).toMatch(/^INBOUND_EMAIL_DOMAIN: INBOUND_EMAIL_DOMAIN must be a domain name/);
  });
});

describe('Settings → Channels → emails', () => {
  it('creates an inbox (forwarding by default), shows its forwarding address, updates and deletes it', async () => {
    const s = await setup();
    const post = (p: string, form: Record<string, string>) => app.request(p, { domain: s.domain, cookie: s.ownerCookie, form });
    const created = await post('/settings/emails/new', { intent: 'save', name: 'Support', email: 'Help@Acme.test' });
    const id = Number(/\/settings\/emails\/(\d+)$/.exec(String(created.headers.location))?.[1]);
    const page = await follow(created, s.domain, s.ownerCookie);
    expect(page).toContain('Inbox Created');
    const inbox = (await getEmailInbox({ accountId: s.account.id, id }))!;
    expect(inbox).toMatchObject({ name: 'Support', email: 'help@acme.test', channelType: 'email', forwardingVerifiedAt: null });
    expect(readEmailSettings(inbox).mode).toBe('forwarding');
    expect(page).toContain(`${inbox.forwardingToken}@inbound.parley.test`);
    expect(page).toContain('Not verified yet');
    // The HTTP endpoint is shown in HTTP mode only.
    expect(page).not.toContain('/webhooks/email/');

    const updated = await post(`/settings/emails/${id}`, { intent: 'save', name: 'Helpdesk', email: 'help@acme.test', mode: 'http' });
    expect(await follow(updated, s.domain, s.ownerCookie)).toContain('Inbox Updated');
    const httpPage = (await app.request(`/settings/emails/${id}`, { domain: s.domain, cookie: s.ownerCookie })).text;
    expect(httpPage).toContain(`/webhooks/email/${id}`);
    expect(httpPage).toContain(`Authorization: Bearer ${inbox.secret}`);

    const deleted = await post(`/settings/emails/${id}`, { intent: 'delete' });
    expect(await follow(deleted, s.domain, s.ownerCookie)).toContain('Inbox Deleted');
    expect(await getEmailInbox({ accountId: s.account.id, id })).toBeUndefined();
    expect(await eventTypes(s.account.id)).toEqual(expect.arrayContaining(['inbox_created', 'inbox_updated', 'inbox_deleted']));
    expect((await post(`/settings/emails/${id}`, { intent: 'frobnicate' })).status).toBe(400);
    expect((await post(`/settings/emails/${id}`, { intent: 'sendverificationmail' })).status).toBe(404);
    expect((await app.request('/settings/emails/abc', { domain: s.domain, cookie: s.ownerCookie })).status).toBe(404);
  });

  it('answers bad input with 400 and the messages, keeping what was typed', async () => {
    const s = await setup();
    const post = (form: Record<string, string>) => app.request('/settings/emails/new', { domain: s.domain, cookie: s.ownerCookie, form: { intent: 'save', ...form } });
    const empty = await post({ name: '  ', email: 'help@acme.test' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Inbox Name is not allowed to be empty');
    const long = await post({ name: 'N'.repeat(21), email: 'not-an-address' });
    expect(long.status).toBe(400);
    expect(long.text).toContain('Length must be less than or equal to 20 characters');
    expect(long.text).toContain('Enter a valid email address');
    expect(long.text).toContain('value="not-an-address"');
    const mode = await post({ name: 'Ok', email: 'help@acme.test', mode: 'pigeon' });
    expect(mode.status).toBe(400);
    expect(mode.text).toContain('Choose how mail reaches Parley');
    expect((await post({ name: 'Sales', email: 'sales@acme.test' })).status).toBe(302);
    const dup = await post({ name: 'SALES', email: 'other@acme.test' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('An inbox with this name already exists');
    expect((await app.request('/settings/emails/new', { domain: s.domain, cookie: s.ownerCookie, form: { intent: 'nope' } })).status).toBe(400);
  });

  it('keeps SMTP and IMAP passwords on the server: never in a page, not even after an error', async () => {
    const s = await setup();
    const created = await app.request('/settings/emails/new', { domain: s.domain, cookie: s.ownerCookie, form: { intent: 'save', name: 'Mailbox', email: 'box@acme.test', mode: 'imap' } });
    const id = Number(/(\d+)$/.exec(String(created.headers.location))?.[1]);
    const post = (form: Record<string, string>) => app.request(`/settings/emails/${id}`, { domain: s.domain, cookie: s.ownerCookie, form });

    const noPassword = await post({ intent: 'smtp', host: 'smtp.acme.test', port: '587', user: 'box' });
    expect(noPassword.status).toBe(400);
    expect(noPassword.text).toContain('Password is not allowed to be empty');
    const badPort = await post({ intent: 'smtp', host: 'smtp.acme.test', port: '99999', user: 'box', password: 'typed-secret-1' });
    expect(badPort.status).toBe(400);
    expect(badPort.text).toContain('Port must be between 1 and 65535');
    expect(badPort.text).not.toContain('typed-secret-1');
    expect(badPort.text).toContain('value="smtp.acme.test"');

    expect(await follow(await post({ intent: 'smtp', host: 'smtp.acme.test', port: '465', secure: 'on', user: 'box', password: 'smtp-secret-2' }), s.domain, s.ownerCookie)).toContain('Inbox Updated');
    expect(await follow(await post({ intent: 'imap', host: 'imap.acme.test', port: '993', secure: 'on', user: 'box', password: 'imap-secret-3' }), s.domain, s.ownerCookie)).toContain('Inbox Updated');
    // An empty password on a later save keeps the stored one.
    await post({ intent: 'smtp', host: 'smtp2.acme.test', port: '587', user: 'box', password: '' });
    const settings = readEmailSettings((await getEmailInbox({ accountId: s.account.id, id }))!);
    expect(settings.smtp).toEqual({ host: 'smtp2.acme.test', port: 587, secure: false, user: 'box', password: 'smtp-secret-2' });
    expect(settings.imap).toMatchObject({ host: 'imap.acme.test', port: 993, secure: true, user: 'box', password: 'imap-secret-3', mailbox: 'INBOX' });
    const page = (await app.request(`/settings/emails/${id}`, { domain: s.domain, cookie: s.ownerCookie })).text;
    expect(page).toContain('smtp2.acme.test');
    expect(page).not.toContain('smtp-secret-2');
    expect(page).not.toContain('imap-secret-3');
    expect(page).toContain('Saved: leave empty to keep it');

    await post({ intent: 'smtp-clear' });
    expect(readEmailSettings((await getEmailInbox({ accountId: s.account.id, id }))!).smtp).toBeUndefined();
  });

  it('sends the verification mail to the support address', async () => {
    const s = await setup();
    const created = await app.request('/settings/emails/new', { domain: s.domain, cookie: s.ownerCookie, form: { intent: 'save', name: 'Support', email: 'verify@acme.test' } });
    const id = Number(/(\d+)$/.exec(String(created.headers.location))?.[1]);
    const sent = await app.request(`/settings/emails/${id}`, { domain: s.domain, cookie: s.ownerCookie, form: { intent: 'sendverificationmail' } });
    expect(sent.headers.location).toBe(`/settings/emails/${id}`);
    expect(await follow(sent, s.domain, s.ownerCookie)).toContain('Invitation sent to your email for forwarding');
    // No SMTP here: the development mailbox has it.
    const [mail] = await getDb()
      .select()
      .from(schema.outboundEmails)
      .where(and(eq(schema.outboundEmails.accountId, s.account.id), eq(schema.outboundEmails.to, 'verify@acme.test')));
    expect(mail.subject).toBe('Forwarding check for Support');
  });

  it('is locked for roles without manage_emails: they see the pages, every change is 403', async () => {
    const s = await setup();
    const created = await app.request('/settings/emails/new', { domain: s.domain, cookie: s.ownerCookie, form: { intent: 'save', name: 'Support', email: 'help@acme.test', mode: 'http' } });
    const id = Number(/(\d+)$/.exec(String(created.headers.location))?.[1]);
    const list = await app.request('/settings/emails', { domain: s.domain, cookie: s.agentCookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain('data-testid="locked-note"');
    const page = await app.request(`/settings/emails/${id}`, { domain: s.domain, cookie: s.agentCookie });
    expect(page.status).toBe(200);
    // The HTTP secret is a credential: not for those who cannot manage the inbox.
    const inbox = (await getEmailInbox({ accountId: s.account.id, id }))!;
    expect(page.text).not.toContain(inbox.secret!);
    const forms: Record<string, string>[] = [{ intent: 'save', name: 'X', email: 'x@acme.test' }, { intent: 'delete' }, { intent: 'sendverificationmail' }];
    for (const form of forms) {
      expect((await app.request(`/settings/emails/${id}`, { domain: s.domain, cookie: s.agentCookie, form })).status).toBe(403);
    }
    expect((await app.request('/settings/emails/new', { domain: s.domain, cookie: s.agentCookie, form: { intent: 'save', name: 'Y', email: 'y@acme.test' } })).status).toBe(403);
    expect((await getEmailInbox({ accountId: s.account.id, id }))?.name).toBe('Support');
  });
});

describe('Settings → Productivity → trusted-domain', () => {
  it('validates as the specification says', () => {
    const errorsOf = (input: Record<string, string>) => {
      const r = TrustedDomainSchema.safeParse(input);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(errorsOf({ domainName: 'Acme', domainUrl: '' })).toEqual(['Domain URL is not allowed to be empty']);
    for (const bad of ['not a url', 'localhost', 'http://192.168.1.20', '10.0.0.1', '127.0.0.1:8080', 'http://172.16.0.1/x', 'http://169.254.1.1', 'example', 'https://example.com:70000'])
      expect(errorsOf({ domainName: 'Acme', domainUrl: bad })).toEqual(['Enter a valid URL']);
    for (const good of ['example.com', 'https://www.example.com', 'http://shop.example.co.uk:8080/path?x=1', '8.8.8.8'])
      expect(errorsOf({ domainName: 'Acme', domainUrl: good })).toEqual([]);
    expect(errorsOf({ domainName: 'D'.repeat(16), domainUrl: 'example.com' })).toEqual(['Length must be less than or equal to 15 characters']);
    expect(errorsOf({ domainName: 'Acme', domainUrl: `${'a'.repeat(57)}.com` })).toEqual(['Length must be less than or equal to 60 characters']);
  });

  it('creates, edits and deletes through the routes, with the toasts; no duplicates; locked without the permission', async () => {
    const s = await setup();
    const post = (p: string, form: Record<string, string>, cookie = s.ownerCookie) => app.request(p, { domain: s.domain, cookie, form });
    const bad = await post('/settings/trusted-domain/new', { intent: 'save', domainName: 'Acme', domainUrl: 'http://192.168.0.1' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid URL');
    expect(bad.text).toContain('value="http://192.168.0.1"');
    const empty = await post('/settings/trusted-domain/new', { intent: 'save', domainName: 'Acme', domainUrl: '' });
    expect(empty.text).toContain('Domain URL is not allowed to be empty');

    expect(await follow(await post('/settings/trusted-domain/new', { intent: 'save', domainName: 'Acme', domainUrl: 'https://www.acme.test' }), s.domain, s.ownerCookie)).toContain(
      'Trusted Domain Created',
    );
    const { rows } = await listTrustedDomains({ accountId: s.account.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ domainName: 'Acme', domainUrl: 'https://www.acme.test', host: 'acme.test' });
    const dup = await post('/settings/trusted-domain/new', { intent: 'save', domainName: 'Again', domainUrl: 'acme.test' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('This domain is already trusted');

    const id = rows[0].id;
    expect(await follow(await post(`/settings/trusted-domain/${id}`, { intent: 'save', domainName: 'Acme Inc', domainUrl: 'acme.test/support' }), s.domain, s.ownerCookie)).toContain(
      'Trusted Domain Updated',
    );
    expect(await getTrustedDomain({ accountId: s.account.id, id })).toMatchObject({ domainName: 'Acme Inc', host: 'acme.test' });

    const agentPage = await app.request(`/settings/trusted-domain/${id}`, { domain: s.domain, cookie: s.agentCookie });
    expect(agentPage.status).toBe(200);
    expect(agentPage.text).toContain('data-testid="locked-note"');
    expect((await post(`/settings/trusted-domain/${id}`, { intent: 'delete' }, s.agentCookie)).status).toBe(403);

    // Another account does not find it.
    const other = await setup();
    expect((await app.request(`/settings/trusted-domain/${id}`, { domain: other.domain, cookie: other.ownerCookie })).status).toBe(404);
    expect((await app.request(`/settings/trusted-domain/${id}`, { domain: other.domain, cookie: other.ownerCookie, form: { intent: 'delete' } })).status).toBe(404);

    expect(await follow(await post(`/settings/trusted-domain/${id}`, { intent: 'delete' }), s.domain, s.ownerCookie)).toContain('Trusted Domain Deleted');
    expect(await getTrustedDomain({ accountId: s.account.id, id })).toBeUndefined();
    expect(await eventTypes(s.account.id)).toEqual(expect.arrayContaining(['trusted_domain_created', 'trusted_domain_updated', 'trusted_domain_deleted']));
  });
});
