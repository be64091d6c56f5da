import http from 'node:http';
import { and, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { startEngine } from '../../engine/index';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
let engine: Awaited<ReturnType<typeof startEngine>>;

beforeAll(async () => {
  app = await startTestApp();
  engine = await startEngine({ mode: 'inline', concurrency: 1 });
});
afterAll(async () => {
  await engine.stop();
  await app.close();
});

async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A multipart POST of one file, as a browser's upload form sends it. */
function upload(opts: { domain: string; cookie: string; filename: string; bytes: Buffer; contentType?: string }) {
  const boundary = `----parley${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${opts.filename}"\r\nContent-Type: ${opts.contentType ?? 'text/csv'}\r\n\r\n`),
    opts.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const host = `${opts.domain}.localhost:3000`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: app.port,
        path: '/customers/import',
        method: 'POST',
        headers: { host, origin: `http://${host}`, cookie: opts.cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function signedIn() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  return { ...a, cookie };
}

async function runImport(opts: { domain: string; cookie: string; accountId: number; filename: string; bytes: Buffer; mapping: string[]; duplicateMode: 'skip' | 'update'; contentType?: string }) {
  const up = await upload(opts);
  expect(up.status).toBe(302);
  const importId = Number(/\/customers\/import\/(\d+)$/.exec(up.headers.location ?? '')![1]);
  const page = await app.request(`/customers/import/${importId}`, { domain: opts.domain, cookie: opts.cookie });
  expect(page.status).toBe(200);
  expect(page.text).toContain('Map the columns');
  const form: Record<string, string> = { intent: 'start', duplicateMode: opts.duplicateMode };
  opts.mapping.forEach((m, i) => (form[`mapping[${i}]`] = m));
  const start = await app.request(`/customers/import/${importId}`, { domain: opts.domain, cookie: opts.cookie, form });
  expect(start.status).toBe(302);
  const done = await waitFor(async () => {
    const [row] = await getDb().select().from(schema.contactImports).where(eq(schema.contactImports.id, importId));
    return row.status === 3 ? row : null;
  });
  return { importId, done };
}

function contactsOf(accountId: number) {
  return getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, accountId)).orderBy(schema.contacts.id);
}

describe('CSV import through the job', () => {
  it('maps columns, creates contacts with company and tags, records failed rows with reasons and offers them as CSV', async () => {
    const a = await signedIn();
    const csv = [
      'E-mail,Given,Family,Org,Labels,Notes',
      'ada@example.test,Ada,Lovelace,Analytical,vip;math,first',
      'not-an-email,Bad,Email,,,x',
      ',,,Nobody Inc,,no name',
      'grace@example.test,Grace,Hopper,Navy,vip,second',
      ',Linus,,,,name only',
    ].join('\n');
    const { importId, done } = await runImport({
      ...a,
      accountId: a.account.id,
      filename: 'people.csv',
      bytes: Buffer.from(csv),
      mapping: ['email', 'firstName', 'lastName', 'company', 'tags', 'ignore'],
      duplicateMode: 'skip',
    });
    expect(done).toMatchObject({ totalRows: 5, processedRows: 5, createdRows: 3, updatedRows: 0, failedRows: 2 });
    expect(done.finishedAt).not.toBeNull();
    const contacts = await contactsOf(a.account.id);
    expect(contacts.map((c) => [c.email, c.firstName, c.lastName])).toEqual([
      ['ada@example.test', 'Ada', 'Lovelace'],
      ['grace@example.test', 'Grace', 'Hopper'],
      [null, 'Linus', ''],
    ]);
    const companies = await getDb().select().from(schema.companies).where(eq(schema.companies.accountId, a.account.id));
    expect(companies.map((c) => c.name).sort()).toEqual(['Analytical', 'Navy']);
    expect(contacts[0].companyId).toBe(companies.find((c) => c.name === 'Analytical')!.id);
    const tagged = await getDb().execute<{ email: string; name: string }>(
      sql`select c.email, t.name from contact_tags ct join contacts c on c.id = ct.contact_id join tags t on t.id = ct.tag_id where ct.account_id = ${a.account.id} order by c.email, t.name`,
    );
    expect(tagged.map((r) => `${r.email}:${r.name}`)).toEqual(['ada@example.test:math', 'ada@example.test:vip', 'grace@example.test:vip']);

    const errors = await getDb().select().from(schema.contactImportErrors).where(eq(schema.contactImportErrors.importId, importId)).orderBy(schema.contactImportErrors.rowNumber);
    expect(errors.map((e) => [e.rowNumber, e.reason])).toEqual([
      [2, 'Invalid email'],
      [3, 'Missing name and email'],
    ]);

    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), sql`${schema.domainEvents.type} in ('contact_created', 'contacts_imported')`)).orderBy(schema.domainEvents.id);
    expect(events.filter((e) => e.type === 'contact_created')).toHaveLength(3);
    const imported = events.filter((e) => e.type === 'contacts_imported');
    expect(imported).toHaveLength(1);
    expect(imported[0].payload).toMatchObject({ created: 3, failed: 2 });

    const page = await app.request(`/customers/import/${importId}`, { domain: a.domain, cookie: a.cookie });
    expect(page.text).toContain('Ready for Import');
    expect(page.text).toMatch(/<progress[^>]*max="5"[^>]*value="5"|<progress[^>]*value="5"[^>]*max="5"/);
    expect(page.text).toContain('Invalid email');

    const failures = await app.request(`/customers/import/${importId}/failures`, { domain: a.domain, cookie: a.cookie });
    expect(failures.status).toBe(200);
    expect(failures.headers['content-type']).toContain('text/csv');
    expect(failures.headers['content-disposition']).toContain('attachment');
    expect(failures.text.trim().split('\n')).toEqual([
      'Row,Reason,E-mail,Given,Family,Org,Labels,Notes',
      '2,Invalid email,not-an-email,Bad,Email,,,x',
      '3,Missing name and email,,,,Nobody Inc,,no name',
    ]);

    // A second submission of the mapping step does not queue the import again.
    const again = await app.request(`/customers/import/${importId}`, { domain: a.domain, cookie: a.cookie, form: { intent: 'start', duplicateMode: 'skip', 'mapping[0]': 'email', 'mapping[1]': 'firstName', 'mapping[2]': 'ignore', 'mapping[3]': 'ignore', 'mapping[4]': 'ignore', 'mapping[5]': 'ignore' } });
    expect(again.status).toBe(302);
    expect(await contactsOf(a.account.id)).toHaveLength(3);
  });

  it('skips or updates contacts whose email exists, by the chosen mode', async () => {
    const a = await signedIn();
    await getDb().insert(schema.contacts).values({ accountId: a.account.id, email: 'ada@example.test', firstName: 'Old', lastName: 'Name', title: 'Countess' });
    const csv = Buffer.from('email,first,last,phone\nADA@example.test,Ada,Lovelace,+44 1234 5678\nnew@example.test,New,Person,\nnew@example.test,Dup,Row,\n');
    const skip = await runImport({ ...a, accountId: a.account.id, filename: 'a.csv', bytes: csv, mapping: ['email', 'firstName', 'lastName', 'phone'], duplicateMode: 'skip' });
    expect(skip.done).toMatchObject({ processedRows: 3, createdRows: 1, updatedRows: 0, failedRows: 0 });
    let ada = (await contactsOf(a.account.id)).find((c) => c.email === 'ada@example.test')!;
    expect([ada.firstName, ada.phone]).toEqual(['Old', null]);

    const update = await runImport({ ...a, accountId: a.account.id, filename: 'b.csv', bytes: csv, mapping: ['email', 'firstName', 'lastName', 'phone'], duplicateMode: 'update' });
    expect(update.done).toMatchObject({ processedRows: 3, createdRows: 0, updatedRows: 2, failedRows: 0 });
    ada = (await contactsOf(a.account.id)).find((c) => c.email === 'ada@example.test')!;
    // Mapped fields are updated; fields the file does not fill are kept.
    expect([ada.firstName, ada.lastName, ada.phone, ada.title]).toEqual(['Ada', 'Lovelace', '+4412345678', 'Countess']);
    expect(await contactsOf(a.account.id)).toHaveLength(2);
    const updatedEvents = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'contact_updated'))).orderBy(schema.domainEvents.id);
    expect(updatedEvents).toHaveLength(2);
  });
});

describe('Excel import', () => {
  it('reads the first worksheet of an .xlsx file', async () => {
    const a = await signedIn();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Contacts');
    ws.addRow(['Email', 'First name', 'Country', 'Website']);
    ws.addRow(['xl@example.test', 'Excel', 'France', 'example.org']);
    ws.addRow(['bad@', 'Bad', '', '']);
    ws.addRow(['site@example.test', 'Site', '', 'not a site']);
    const bytes = Buffer.from(await wb.xlsx.writeBuffer());
    const { importId, done } = await runImport({
      ...a,
      accountId: a.account.id,
      filename: 'people.xlsx',
      bytes,
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      mapping: ['email', 'firstName', 'country', 'website'],
      duplicateMode: 'skip',
    });
    expect(done).toMatchObject({ totalRows: 3, createdRows: 1, failedRows: 2 });
    const [xl] = await contactsOf(a.account.id);
    expect([xl.email, xl.firstName, xl.country, xl.address, xl.website, xl.source]).toEqual(['xl@example.test', 'Excel', 'France', { country: 'France' }, 'https://example.org', 'import']);
    const errors = await getDb().select().from(schema.contactImportErrors).where(eq(schema.contactImportErrors.importId, importId)).orderBy(schema.contactImportErrors.rowNumber);
    expect(errors.map((e) => e.reason)).toEqual(['Invalid email', 'Website should have a valid uri']);
  });
});

describe('upload checks', () => {
  it('answers 400 with a clear message for a file that is not CSV or xlsx, an empty file, or no file', async () => {
    const a = await signedIn();
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6300010000050001', 'hex');
    const bad = await upload({ ...a, filename: 'photo.csv', bytes: png });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('The file must be a CSV or an Excel (.xlsx) file');
    const headerOnly = await upload({ ...a, filename: 'empty.csv', bytes: Buffer.from('email,name\n') });
    expect(headerOnly.status).toBe(400);
    expect(headerOnly.text).toContain('The file has no rows to import');
    const big = await upload({ ...a, filename: 'big.csv', bytes: Buffer.alloc(10 * 1024 * 1024 + 10, 'a') });
    expect(big.status).toBe(400);
    expect(big.text).toContain('The file is larger than 10 MB');
    const none = await app.request('/customers/import', { domain: a.domain, cookie: a.cookie, form: { x: '1' } });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose a CSV or Excel (.xlsx) file to import');
  });

  it('refuses a mapping without email or name, and a field mapped twice, with 400', async () => {
    const a = await signedIn();
    const up = await upload({ ...a, filename: 'x.csv', bytes: Buffer.from('a,b\n1,2\n') });
    const id = /(\d+)$/.exec(up.headers.location!)![1];
    const noKey = await app.request(`/customers/import/${id}`, { domain: a.domain, cookie: a.cookie, form: { intent: 'start', duplicateMode: 'skip', 'mapping[0]': 'phone', 'mapping[1]': 'ignore' } });
    expect(noKey.status).toBe(400);
    expect(noKey.text).toContain('Map at least one column to Email, First name or Last name');
    const twice = await app.request(`/customers/import/${id}`, { domain: a.domain, cookie: a.cookie, form: { intent: 'start', duplicateMode: 'skip', 'mapping[0]': 'email', 'mapping[1]': 'email' } });
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('Email is mapped to more than one column');
    const unknown = await app.request(`/customers/import/${id}`, { domain: a.domain, cookie: a.cookie, form: { intent: 'other' } });
    expect(unknown.status).toBe(400);
  });
});

describe('tenancy and permissions', () => {
  it("never shows or downloads another account's import, and exports only the account's own contacts", async () => {
    const a = await signedIn();
    const b = await signedIn();
    const { importId } = await runImport({ ...a, accountId: a.account.id, filename: 'a.csv', bytes: Buffer.from('email\nonly-a@example.test\nbad\n'), mapping: ['email'], duplicateMode: 'skip' });
    await getDb().insert(schema.contacts).values({ accountId: b.account.id, email: 'only-b@example.test', firstName: 'Bee' });
    for (const path of [`/customers/import/${importId}`, `/customers/import/${importId}/failures`]) {
      expect((await app.request(path, { domain: b.domain, cookie: b.cookie })).status).toBe(404);
    }
    const list = await app.request('/customers/import', { domain: b.domain, cookie: b.cookie });
    expect(list.text).not.toContain('a.csv');
    const exportB = await app.request('/customers/export', { domain: b.domain, cookie: b.cookie });
    expect(exportB.status).toBe(200);
    expect(exportB.text).toContain('only-b@example.test');
    expect(exportB.text).not.toContain('only-a@example.test');
    const exportA = await app.request('/customers/export', { domain: a.domain, cookie: a.cookie });
    expect(exportA.text).toContain('only-a@example.test');
    expect(exportA.text).not.toContain('only-b@example.test');
  });

  it('answers 403 to users without import_contacts or export_contacts', async () => {
    const a = await signedIn();
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    expect((await app.request('/customers/import', { domain: a.domain, cookie })).status).toBe(403);
    expect((await upload({ domain: a.domain, cookie, filename: 'x.csv', bytes: Buffer.from('email\nx@example.test\n') })).status).toBe(403);
    expect((await app.request('/customers/export', { domain: a.domain, cookie })).status).toBe(403);
    const [imp] = await getDb().insert(schema.contactImports).values({ accountId: a.account.id, filename: 'x.csv', storageKey: 'imports/none.csv' }).returning();
    expect((await app.request(`/customers/import/${imp.id}`, { domain: a.domain, cookie })).status).toBe(403);
    expect((await app.request(`/customers/import/${imp.id}/failures`, { domain: a.domain, cookie })).status).toBe(403);
  });
});

describe('export', () => {
  it('filters by text, tag and segment, and a foreign segment is a 404', async () => {
    const a = await signedIn();
    const b = await signedIn();
    const [ada, bob] = await getDb()
      .insert(schema.contacts)
      .values([
        { accountId: a.account.id, email: 'ada@example.test', firstName: 'Ada', lastName: 'Lovelace', country: 'UK' },
        { accountId: a.account.id, email: 'bob@example.test', firstName: 'Bob', lastName: 'Builder', country: 'FR' },
      ])
      .returning();
    const [tag] = await getDb().insert(schema.tags).values({ accountId: a.account.id, name: 'vip' }).returning();
    await getDb().insert(schema.contactTags).values({ accountId: a.account.id, contactId: bob.id, tagId: tag.id });
    const [dynamic] = await getDb().insert(schema.segments).values({ accountId: a.account.id, kind: 'contact', name: 'UK', isStatic: false, conditions: { country: 'UK' } }).returning();
    const [fixed] = await getDb().insert(schema.segments).values({ accountId: a.account.id, kind: 'contact', name: 'Bob', isStatic: true }).returning();
    await getDb().insert(schema.segmentMembers).values({ accountId: a.account.id, segmentId: fixed.id, memberId: bob.id });
    const [foreign] = await getDb().insert(schema.segments).values({ accountId: b.account.id, kind: 'contact', name: 'B', isStatic: false }).returning();
    const get = (q: string) => app.request(`/customers/export${q}`, { domain: a.domain, cookie: a.cookie });
    const emails = (text: string) =>
      text
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[3]);
    const all = await get('');
    expect(all.headers['content-disposition']).toMatch(/^attachment; filename="contacts-/);
    expect(all.text.split('\n')[0]).toBe('id,firstName,lastName,email,phone,title,website,country,company,tags,createdAt');
    expect(emails(all.text)).toEqual(['ada@example.test', 'bob@example.test']);
    expect(emails((await get('?q=lovel')).text)).toEqual(['ada@example.test']);
    expect(emails((await get(`?tag=${tag.id}`)).text)).toEqual(['bob@example.test']);
    expect(all.text).toContain(',vip,');
    expect(emails((await get(`?segment=${dynamic.id}`)).text)).toEqual(['ada@example.test']);
    expect(emails((await get(`?segment=${fixed.id}`)).text)).toEqual(['bob@example.test']);
    expect((await get(`?segment=${foreign.id}`)).status).toBe(404);
    expect((await get('?segment=abc')).status).toBe(404);
    void ada;
  });

  it('streams 20,000 contacts from a cursor with flat memory', async () => {
    const a = await signedIn();
    await getDb().execute(
      sql`insert into contacts (account_id, email, first_name, last_name) select ${a.account.id}, 'c' || g || '@example.test', 'First' || g, 'Last' || g from generate_series(1, 20000) g`,
    );
    // The stream pulls one cursor page at a time: after the first read only a page (not the table) has been fetched.
    const { exportContactsCsv } = await import('../../app/models/crm/exports.server');
    const stream = exportContactsCsv({ accountId: a.account.id });
    const reader = stream.getReader();
    const header = await reader.read();
    const firstPage = await reader.read();
    expect(new TextDecoder().decode(header.value)).toContain('id,firstName');
    expect(new TextDecoder().decode(firstPage.value).trim().split('\n')).toHaveLength(1000);
    await reader.cancel();

    // Over HTTP the whole export arrives in many chunks while the heap stays flat.
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let lines = 0;
    let chunks = 0;
    const host = `${a.domain}.localhost:3000`;
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: app.port, path: '/customers/export', headers: { host, cookie: a.cookie } }, (res) => {
          expect(res.statusCode).toBe(200);
          res.on('data', (c: Buffer) => {
            chunks += 1;
            for (const byte of c) if (byte === 10) lines += 1;
            peak = Math.max(peak, process.memoryUsage().heapUsed);
          });
          res.on('end', () => resolve());
          res.on('error', reject);
        })
        .on('error', reject);
    });
    expect(lines).toBe(20_001);
    expect(chunks).toBeGreaterThan(10);
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  });
});
