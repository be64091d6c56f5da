import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { listVisitorMessages, postVisitorMessage, readFileLink, startVisitor, visitorFromToken } from '../../app/models/channels/widget.server';
import { forwardingAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { readAttachment } from '../../app/models/inbox/attachments.server';
import { AUDIO_TOO_LARGE, AUDIO_TYPE, INLINE_IMAGE_TOO_LARGE, INLINE_IMAGE_TYPE, MAX_INLINE_IMAGE_BYTES, MediaFileError } from '../../app/models/inbox/inline-media.server';
import { postMessageWithFiles } from '../../app/models/inbox/replies.server';
import { createTestAccount } from '../factories';
import { makePng } from '../helpers/png';
import { startSmtpSink } from '../helpers/smtp-sink';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-inline-media-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';
process.env.MAIL_FROM = 'Parley <no-reply@mail.parley.test>';

/** A real, playable WAV clip (8 kHz, 8 bits, mono, silence). */
function makeWav(samples = 800) {
  const b = Buffer.alloc(44 + samples);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVE', 8);
  b.write('fmt ', 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples, 40);
  b.fill(128, 44);
  return b;
}

let sink: Awaited<ReturnType<typeof startSmtpSink>>;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => {
  await sink.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function emailConversation() {
  const a = await createTestAccount({ firstName: 'Olive' });
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode: 'forwarding' });
  const raw = Buffer.from(`From: Cara <cara@example.test>\r\nTo: ${forwardingAddress(inbox)}\r\nSubject: Where is the button?\r\nMessage-ID: <im-${inbox.id}@example.test>\r\n\r\nI cannot find it.\r\n`);
  const result = await ingestEmail({ inbox, raw, via: 'http' });
  if (result.status !== 'created') throw new Error(`expected a conversation, got ${result.status}`);
  return { ...a, inbox, conversationId: result.conversationId };
}

const countAttachments = async (accountId: number) => (await getDb().select().from(schema.attachments).where(eq(schema.attachments.accountId, accountId))).length;
const storedFiles = () => (fs.existsSync(dataDir) ? fs.readdirSync(dataDir, { recursive: true }).filter((f) => fs.statSync(path.join(dataDir, String(f))).isFile()).length : 0);

describe('a reply with an inline image and an audio clip', () => {
  it('goes out over SMTP as multipart/related, the html naming the image by its cid, the clip as an attachment', async () => {
    const s = await emailConversation();
    const png = makePng(4, 3);
    const wav = makeWav();
    const before = sink.received.length;
    const reply = await postMessageWithFiles({
      accountId: s.account.id,
      actorId: s.owner.id,
      conversationId: s.conversationId,
      kind: 'outgoing',
      text: 'It is here:\n[image]\nand I recorded how to use it.',
      files: [],
      // The browser's label lies; the bytes decide.
      inlineImages: [{ name: 'where.png', type: 'application/octet-stream', bytes: png }],
      audio: [{ name: 'how-to.wav', type: 'video/quicktime', bytes: wav }],
    });
    // The thread: text with the image named where it is, HTML showing it through the signed-in attachment route.
    expect(reply.text).toBe('It is here:\n[image: where.png]\nand I recorded how to use it.');
    const files = await getDb().select().from(schema.attachments).where(and(eq(schema.attachments.accountId, s.account.id), eq(schema.attachments.messageId, reply.id)));
    const image = files.find((f) => f.filename === 'where.png')!;
    const clip = files.find((f) => f.filename === 'how-to.wav')!;
    expect(image.contentType).toBe('image/png');
    expect(image.contentId).toMatch(/^img-[0-9a-f]{24}@parley\.inline$/);
    expect(clip.contentType).toBe('audio/wav');
    expect(clip.contentId).toBeNull();
    expect(reply.html).toContain(`<img src="/attachments/${image.id}" alt="where.png"`);
    expect(reply.html!.indexOf('It is here:')).toBeLessThan(reply.html!.indexOf('<img'));
    expect(reply.html!.indexOf('<img')).toBeLessThan(reply.html!.indexOf('and I recorded'));

    await deliverMessage({ messageId: reply.id });
    expect(sink.received.length).toBe(before + 1);
    const { raw } = sink.received.at(-1)!;
    expect(raw).toMatch(/Content-Type: multipart\/related/i);
    // mailparser would turn cid: links into data: URIs; the html as sent is what is checked.
    const mail = await simpleParser(raw, { keepCidLinks: true });
    expect(mail.html).toContain(`src="cid:${image.contentId}"`);
    expect(mail.html).not.toContain('/attachments/');
    expect(mail.text?.trim()).toBe('It is here:\n[image: where.png]\nand I recorded how to use it.');
    const related = mail.attachments.find((a) => a.filename === 'where.png')!;
    expect(related.cid).toBe(image.contentId);
    expect(related.related).toBe(true);
    expect(related.contentDisposition).toBe('inline');
    expect(Buffer.compare(related.content, png)).toBe(0);
    const audio = mail.attachments.find((a) => a.filename === 'how-to.wav')!;
    expect(audio.contentDisposition).toBe('attachment');
    expect(audio.related).toBeFalsy();
    expect(audio.contentType).toBe('audio/wav');
    expect(Buffer.compare(audio.content, wav)).toBe(0);
  });

  it('places images named by [image: name] there, and the others at the end', async () => {
    const s = await emailConversation();
    const reply = await postMessageWithFiles({
      accountId: s.account.id,
      actorId: s.owner.id,
      conversationId: s.conversationId,
      kind: 'outgoing',
      text: 'Second: [image: b.png] done',
      files: [],
      inlineImages: [
        { name: 'a.png', type: 'image/png', bytes: makePng(2, 2) },
        { name: 'b.png', type: 'image/png', bytes: makePng(3, 3) },
      ],
    });
    expect(reply.text).toBe('Second: [image: b.png] done\n\n[image: a.png]');
    expect(reply.html!.indexOf('alt="b.png"')).toBeLessThan(reply.html!.indexOf('done'));
    expect(reply.html!.indexOf('alt="a.png"')).toBeGreaterThan(reply.html!.indexOf('done'));
  });

  it('refuses a wrong or too large image or clip with the field and the message, leaving nothing behind', async () => {
    const s = await emailConversation();
    const base = { accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'outgoing' as const, text: 'See', files: [{ name: 'ok.txt', type: 'text/plain', bytes: new TextEncoder().encode('fine') }] };
    const rows = await countAttachments(s.account.id);
    const stored = storedFiles();
    const messages = (await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, s.conversationId))).length;
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const cases: [Partial<Parameters<typeof postMessageWithFiles>[0]>, string, string][] = [
      [{ inlineImages: [{ name: 'x.png', type: 'image/png', bytes: svg }] }, 'inlineImages', `${INLINE_IMAGE_TYPE}: x.png`],
      [{ inlineImages: [{ name: 'big.png', type: 'image/png', bytes: Buffer.concat([makePng(2, 2), Buffer.alloc(MAX_INLINE_IMAGE_BYTES)]) }] }, 'inlineImages', `${INLINE_IMAGE_TOO_LARGE}: big.png`],
      [{ audio: [{ name: 'song.mp3', type: 'audio/mpeg', bytes: makePng(2, 2) }] }, 'audio', `${AUDIO_TYPE}: song.mp3`],
      [{ audio: [{ name: 'long.wav', type: 'audio/wav', bytes: makeWav(10 * 1024 * 1024) }] }, 'audio', AUDIO_TOO_LARGE],
    ];
    for (const [extra, field, message] of cases) {
      const err = await postMessageWithFiles({ ...base, inlineImages: [{ name: 'good.png', type: 'image/png', bytes: makePng() }], ...extra }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MediaFileError);
      expect((err as MediaFileError).field).toBe(field);
      expect((err as MediaFileError).message).toBe(message);
    }
    expect(await countAttachments(s.account.id)).toBe(rows);
    expect(storedFiles()).toBe(stored);
    expect((await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, s.conversationId))).length).toBe(messages);
  });
});

describe('in the chat widget', () => {
  it("an agent's inline image and audio clip reach the visitor as an image and a clip of the bubble, by signed links", async () => {
    const a = await createTestAccount();
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Chat' });
    const { token } = await startVisitor({ inbox });
    await postVisitorMessage({ visitor: (await visitorFromToken(token))!.visitor, text: 'Hello, how do I export?' });
    const { visitor } = (await visitorFromToken(token))!;
    const png = makePng(5, 5);
    await postMessageWithFiles({
      accountId: a.account.id,
      actorId: a.owner.id,
      conversationId: visitor.conversationId!,
      kind: 'outgoing',
      text: 'Press this: [image]',
      files: [],
      inlineImages: [{ name: 'export.png', type: 'image/png', bytes: png }],
      audio: [{ name: 'voice.wav', type: 'audio/wav', bytes: makeWav() }],
    });
    const messages = await listVisitorMessages({ visitor });
    const agent = messages.at(-1)!;
    expect(agent.from).toBe('agent');
    // The bubble shows the picture itself; the mail's "[image: …]" words are left out of the chat.
    expect(agent.text).toBe('Press this:');
    expect(agent.attachments.map((f) => [f.name, f.kind])).toEqual([
      ['export.png', 'image'],
      ['voice.wav', 'audio'],
    ]);
    const link = readFileLink(agent.attachments[0].url.split('/').pop());
    expect(link?.accountId).toBe(a.account.id);
    const found = await readAttachment({ accountId: link!.accountId, id: link!.attachmentId });
    expect(Buffer.compare(Buffer.from(found!.bytes), png)).toBe(0);
  });
});
