import http from 'node:http';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
// The engine's job table loads every sending channel, as the engine does.
import '../../engine/jobs/index';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { saveAttachment } from '../../app/models/inbox/attachments.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { ReplyFileError } from '../../app/models/inbox/replies.server';
import { createEmailTemplate, deleteEmailTemplate } from '../../app/models/productivity/email-templates.server';
import {
  addTemplateAttachments,
  listTemplateAttachments,
  removeTemplateAttachment,
  templateFilesForReply,
} from '../../app/models/productivity/template-attachments.server';
import { readStoredFile } from '../../app/models/storage/files.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startSmtpSink } from '../helpers/smtp-sink';

const text = (s: string) => ({ name: 'notes.txt', type: 'text/plain', bytes: new TextEncoder().encode(s) });

describe('email template attachments (model)', () => {
  it('adds, lists, removes and deletes with the template; the reply limits hold; other accounts see nothing', async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const who = { accountId: a.account.id, actorId: a.owner.id };
    const t = await createEmailTemplate({ ...who, name: 'Returns', subject: 'Your return', body: 'Hello {{firstName}}, the label is attached.' });
    const added = await addTemplateAttachments({ ...who, templateId: t.id, files: [{ ...text('RETURN LABEL'), name: 'label.txt' }, text('Keep the box')] });
    expect(added!.map((f) => f.filename)).toEqual(['label.txt', 'notes.txt']);
    const listed = await listTemplateAttachments({ accountId: a.account.id, templateId: t.id });
    expect(listed.map((f) => [f.filename, f.size])).toEqual([
      ['label.txt', 12],
      ['notes.txt', 12],
    ]);
    // Another account: not its template, not its files.
    expect(await addTemplateAttachments({ accountId: b.account.id, actorId: b.owner.id, templateId: t.id, files: [text('x')] })).toBeUndefined();
    expect(await listTemplateAttachments({ accountId: b.account.id, templateId: t.id })).toEqual([]);
    expect(await removeTemplateAttachment({ accountId: b.account.id, actorId: b.owner.id, templateId: t.id, attachmentId: listed[0].id })).toBe(false);
    await expect(templateFilesForReply({ accountId: b.account.id, ids: [listed[0].id] })).rejects.toBeInstanceOf(ReplyFileError);
    // A program is refused with the reply's words, and nothing is stored.
    await expect(addTemplateAttachments({ ...who, templateId: t.id, files: [{ name: 'setup.exe', type: 'application/octet-stream', bytes: new Uint8Array([0x4d, 0x5a, 0x90, 0x00]) }] })).rejects.toThrow(
      'Programs and scripts cannot be attached: setup.exe',
    );
    await expect(addTemplateAttachments({ ...who, templateId: t.id, files: Array.from({ length: 9 }, () => text('x')) })).rejects.toThrow('At most 10 attachments');
    expect(await listTemplateAttachments({ accountId: a.account.id, templateId: t.id })).toHaveLength(2);
    // A file of a message being written (no message yet) is not a template's, whatever Content-ID a sender gave it.
    const forged = await saveAttachment({ accountId: a.account.id, messageId: null, filename: 'x.txt', bytes: new TextEncoder().encode('x'), contentId: `parley:email-template:${t.id}` });
    expect(forged.contentId).toBe(`x-parley:email-template:${t.id}`);
    expect(await listTemplateAttachments({ accountId: a.account.id, templateId: t.id })).toHaveLength(2);
    await expect(templateFilesForReply({ accountId: a.account.id, ids: [forged.id] })).rejects.toBeInstanceOf(ReplyFileError);

    expect(await removeTemplateAttachment({ ...who, templateId: t.id, attachmentId: listed[1].id })).toBe(true);
    const [gone] = await getDb().select().from(schema.attachments).where(eq(schema.attachments.id, listed[1].id));
    expect(gone).toBeUndefined();
    const [kept] = await getDb().select().from(schema.attachments).where(eq(schema.attachments.id, listed[0].id));
    expect(Buffer.from((await readStoredFile(kept.storageKey))!).toString()).toBe('RETURN LABEL');
    expect(await deleteEmailTemplate({ ...who, id: t.id })).toBe(true);
    expect(await getDb().select().from(schema.attachments).where(eq(schema.attachments.id, kept.id))).toEqual([]);
    expect(await readStoredFile(kept.storageKey)).toBeUndefined();
  });
});

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** A browser's multipart post (fields and files). */
async function postMultipart(domain: string, cookie: string, pathname: string, fields: [string, string][], files: { name: string; type: string; bytes: Uint8Array }[] = []) {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  for (const f of files) form.append('files', new Blob([Buffer.from(f.bytes)], { type: f.type }), f.name);
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const host = `${domain}.${process.env.APP_HOST}`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: app.port,
        path: pathname,
        method: 'POST',
        headers: { host, cookie, origin: `http://${host}`, 'content-type': encoded.headers.get('content-type')!, 'content-length': body.length },
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

describe('email template attachments (screens, without JavaScript, to the mail)', () => {
  it('attached on the template’s screen, listed checked under the reply after inserting the template, and sent with the email', async () => {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
    const t = await createEmailTemplate({ accountId: a.account.id, actorId: a.owner.id, name: 'Returns', subject: '', body: 'Hello {{firstName}}, the label is attached.' });
    const editor = `/settings/email-templates/${t.id}`;

    // Upload on the template's edit screen.
    const up = await postMultipart(a.domain, cookie, editor, [['intent', 'attach']], [{ name: 'label.pdf.txt', type: 'text/plain', bytes: new TextEncoder().encode('RETURN LABEL 7') }]);
    expect(up.status).toBe(302);
    const bad = await postMultipart(a.domain, cookie, editor, [['intent', 'attach']], [{ name: 'run.sh', type: 'text/plain', bytes: new TextEncoder().encode('echo') }]);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Programs and scripts cannot be attached: run.sh');
    const none = await postMultipart(a.domain, cookie, editor, [['intent', 'attach']]);
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose a file to attach');
    const [file] = await listTemplateAttachments({ accountId: a.account.id, templateId: t.id });
    const page = await app.request(editor, { domain: a.domain, cookie });
    expect(page.text).toContain(`href="/attachments/${file.id}"`);
    expect(page.text).toContain('label.pdf.txt');

    const { conversation } = await openConversation({
      accountId: a.account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Returning my order',
      contact: { email: 'cara@example.test', name: 'Cara Customer' },
      message: { kind: 'incoming', text: 'How do I send it back?' },
    });
    // Inserting the template (a link, without JavaScript): the reply holds its text and lists its files, checked.
    const withTemplate = await app.request(`/inbox/${conversation.id}?template=${t.id}`, { domain: a.domain, cookie });
    expect(withTemplate.text).toContain('Hello Cara, the label is attached.');
    const box = withTemplate.text.match(/<input type="checkbox"[^>]*name="templateAttachments"[^>]*>/)?.[0] ?? '';
    expect(box).toContain(`value="${file.id}"`);
    expect(box).toContain('checked=""');
    const plain = await app.request(`/inbox/${conversation.id}`, { domain: a.domain, cookie });
    expect(plain.text).not.toContain('name="templateAttachments"');

    const sink = await startSmtpSink();
    try {
      const sent = await postMultipart(a.domain, cookie, `/inbox/${conversation.id}`, [
        ['intent', 'reply'],
        ['text', 'Hello Cara, the label is attached.'],
        ['templateAttachments', String(file.id)],
      ]);
      expect(sent.status).toBe(302);
      const [reply] = await getDb()
        .select()
        .from(schema.messages)
        .where(and(eq(schema.messages.conversationId, conversation.id), eq(schema.messages.kind, 'outgoing')));
      const copies = await getDb().select().from(schema.attachments).where(eq(schema.attachments.messageId, reply.id));
      // A copy: the template keeps its own file.
      expect(copies.map((c) => [c.filename, c.contentId])).toEqual([['label.pdf.txt', null]]);
      expect(copies[0].id).not.toBe(file.id);
      expect(await listTemplateAttachments({ accountId: a.account.id, templateId: t.id })).toHaveLength(1);

      const result = await deliverMessage({ messageId: reply.id });
      expect(result).not.toMatchObject({ failed: true });
      const mail = sink.received.find((r) => r.to.includes('cara@example.test'))!.mail;
      expect(mail.attachments.map((x) => [x.filename, x.content.toString()])).toEqual([['label.pdf.txt', 'RETURN LABEL 7']]);
    } finally {
      await sink.stop();
    }

    // Removing it on the template's screen.
    const removed = await postMultipart(a.domain, cookie, editor, [
      ['intent', 'remove-attachment'],
      ['attachmentId', String(file.id)],
    ]);
    expect(removed.status).toBe(302);
    expect(await listTemplateAttachments({ accountId: a.account.id, templateId: t.id })).toEqual([]);
  });
});
