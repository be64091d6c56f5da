import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { forwardingAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { readAttachment } from '../../app/models/inbox/attachments.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { createTestAccount } from '../factories';

/**
 * Outlook's winmail.dat against the tnef project's own test set (tests/fixtures/tnef/README.md): each file, mailed
 * through the inbound SMTP server, arrives as the files that project's expected output lists (names, sizes, bytes),
 * or, when the tnef tool itself reports the file unreadable or it holds nothing to show, as the winmail.dat itself
 * with a note on the conversation. Nothing is lost silently.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-tnef-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

const FIXTURES = path.resolve('tests/fixtures/tnef');
type Expected = Record<string, { files: { name: string; size: number; sha256: string | null }[]; error: boolean }>;
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Expected;

/** Bodies the files carry (the tnef project's body baselines), as Parley shows them. */
const BODIES: Record<string, { text?: string; html?: string }> = {
  'body.tnef': { html: 'THE BILL OF RIGHTS' },
  'rtf.tnef': { text: 'adfhadhadhb' },
  'triples.tnef': { text: 'Sample description' },
  'unicode-mapi-attr.tnef': { html: 'hello world' },
  'unicode-mapi-attr-name.tnef': { html: 'Przesyłam poprawiony plik' },
  'MAPI_ATTACH_DATA_OBJ.tnef': { text: 'Det er jo en velkjent sak at bodødamene' },
};

let smtp: Awaited<ReturnType<typeof startInboundSmtp>>;
let mailer: nodemailer.Transporter;

beforeAll(async () => {
  smtp = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
  mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
});
afterAll(async () => {
  mailer.close();
  await smtp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function outlookMail(to: string, file: string, tnef: Buffer) {
  return [
    'From: Olga <olga@example.test>',
    `To: ${to}`,
    `Subject: Outlook ${file}`,
    `Message-ID: <${file}@outlook.example.test>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: application/ms-tnef; name="winmail.dat"',
    'Content-Disposition: attachment; filename="winmail.dat"',
    'Content-Transfer-Encoding: base64',
    '',
    tnef.toString('base64').replace(/.{76}/g, '$&\r\n'),
    '--b1--',
    '',
  ].join('\r\n');
}

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

describe("winmail.dat: the tnef project's test files", () => {
  const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.tnef'));

  it('the whole set is here (16 files), each with its expected listing', () => {
    expect(files.length).toBe(16); // the fifteen of tests/files/datafiles and tests/cmdline/test.tnef
    expect(Object.keys(expected).sort()).toEqual([...files].sort());
  });

  it.each(files)('%s arrives with the files the tnef project lists (names, sizes, bytes), or as it came with a note', async (file) => {
    const a = await createTestAccount();
    const inbox = await createEmailInbox({
      accountId: a.account.id,
      actorId: a.owner.id,
      name: 'Support',
      email: `support@${a.domain}.test`,
      mode: 'forwarding',
    });
    const tnef = fs.readFileSync(path.join(FIXTURES, file));
    await mailer.sendMail({
      envelope: { from: 'olga@example.test', to: [forwardingAddress(inbox)!] },
      raw: outlookMail(forwardingAddress(inbox)!, file, tnef),
    });

    const messages = await getDb().select().from(schema.messages).where(eq(schema.messages.accountId, a.account.id)).orderBy(asc(schema.messages.id));
    const incoming = messages.filter((m) => m.kind === 'incoming');
    expect(incoming).toHaveLength(1);
    const notes = messages.filter((m) => m.kind === 'system').map((m) => m.text);
    const rows = await getDb()
      .select()
      .from(schema.attachments)
      .where(and(eq(schema.attachments.accountId, a.account.id), eq(schema.attachments.messageId, incoming[0].id)))
      .orderBy(asc(schema.attachments.id));
    const arrived = await Promise.all(
      rows.map(async (r) => {
        const found = await readAttachment({ accountId: a.account.id, id: r.id });
        return { name: r.filename, size: r.size, sha256: sha256(found!.bytes) };
      }),
    );

    const want = expected[file];
    const body = BODIES[file];
    const keptAsItCame = want.error || (want.files.length === 0 && !body);
    const listed = want.files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256 ?? expect.any(String) }));
    if (keptAsItCame) {
      expect(arrived).toEqual([...listed, { name: 'winmail.dat', size: tnef.byteLength, sha256: sha256(tnef) }]);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(/winmail\.dat .*it is attached as it came\.$/);
    } else {
      expect(arrived).toEqual(listed);
      expect(notes).toEqual([]);
    }
    if (body?.html) expect(incoming[0].html).toContain(body.html);
    if (body?.text) expect(incoming[0].text).toContain(body.text);
  });

  it('bytes that are no TNEF at all are kept as winmail.dat, with a note', async () => {
    const a = await createTestAccount();
    const inbox = await createEmailInbox({
      accountId: a.account.id,
      actorId: a.owner.id,
      name: 'Support',
      email: `support@${a.domain}.test`,
      mode: 'forwarding',
    });
    const junk = Buffer.from('not a TNEF stream, just bytes an old gateway mangled');
    await mailer.sendMail({
      envelope: { from: 'olga@example.test', to: [forwardingAddress(inbox)!] },
      raw: outlookMail(forwardingAddress(inbox)!, 'junk', junk),
    });
    const messages = await getDb().select().from(schema.messages).where(eq(schema.messages.accountId, a.account.id)).orderBy(asc(schema.messages.id));
    const incoming = messages.find((m) => m.kind === 'incoming')!;
    const rows = await getDb().select().from(schema.attachments).where(eq(schema.attachments.messageId, incoming.id));
    expect(rows.map((r) => [r.filename, r.size])).toEqual([['winmail.dat', junk.byteLength]]);
    expect(messages.filter((m) => m.kind === 'system').map((m) => m.text)).toEqual([
      "Parley could not unpack winmail.dat (Outlook's TNEF); it is attached as it came.",
    ]);
  });
});
