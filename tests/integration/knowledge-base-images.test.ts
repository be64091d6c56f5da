import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { KbImageError, listKbImages, readKbImage, saveKbImage } from '../../app/models/knowledge-base/images.server';
import { KB_IMAGE_MAX_BYTES } from '../../app/models/knowledge-base/constants';
import { sanitizeArticleHtml } from '../../app/models/knowledge-base/sanitize.server';
import { createTestAccount } from '../factories';
import { startTestApp } from '../helpers/http';

// The help centres' own host for this file only (ADR 056); read by the app's config on first use.
process.env.HELP_HOST = 'help.test:3000';

/** A real 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup() {
  const acc = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name: 'Help' });
  return { ...acc, kb, scope: { accountId: acc.account.id, knowledgeBaseId: kb.id } };
}

describe('knowledge-base images', () => {
  it('stores an image sniffed by its bytes, reads it back, lists it', async () => {
    const { scope, owner } = await setup();
    const saved = await saveKbImage({ ...scope, filename: '../../etc/screen shot.png', bytes: PNG, userId: owner.id });
    expect(saved).toMatchObject({ filename: 'screen shot.png', contentType: 'image/png', size: PNG.length, createdBy: owner.id });
    expect(saved.url).toMatch(/^\/kb-images\/[0-9a-f]{32}$/);
    const read = await readKbImage({ accountId: scope.accountId, token: saved.token });
    expect(Buffer.from(read!.bytes).equals(PNG)).toBe(true);
    expect((await listKbImages(scope)).map((i) => i.id)).toEqual([saved.id]);
  });

  it('refuses empty, too large and non-image files with a clear message, storing nothing', async () => {
    const { scope } = await setup();
    const big = Buffer.concat([PNG, Buffer.alloc(KB_IMAGE_MAX_BYTES)]);
    await expect(saveKbImage({ ...scope, filename: 'empty.png', bytes: new Uint8Array() })).rejects.toThrow('empty.png is empty');
    await expect(saveKbImage({ ...scope, filename: 'big.png', bytes: big })).rejects.toThrow('big.png is larger than 5 MB');
    const notImages = [
      Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\n'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      Buffer.from('just some text'),
    ];
    for (const bytes of notImages) {
      // The name says PNG; the bytes say otherwise.
      const err = await saveKbImage({ ...scope, filename: 'fake.png', bytes }).catch((e) => e);
      expect(err).toBeInstanceOf(KbImageError);
      expect(err.message).toBe('fake.png is not a PNG, JPEG, GIF or WebP image');
    }
    expect(await listKbImages(scope)).toEqual([]);
  });

  it("never reads another account's image, nor another knowledge base's when one is named", async () => {
    const a = await setup();
    const b = await setup();
    const image = await saveKbImage({ ...a.scope, filename: 'a.png', bytes: PNG });
    expect(await readKbImage({ accountId: b.account.id, token: image.token })).toBeUndefined();
    const otherKb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Other' });
    expect(await readKbImage({ accountId: a.account.id, knowledgeBaseId: otherKb.id, token: image.token })).toBeUndefined();
    expect(await readKbImage({ accountId: a.account.id, knowledgeBaseId: a.kb.id, token: image.token })).toBeDefined();
    // A knowledge base of another account cannot receive an image either.
    await expect(saveKbImage({ accountId: b.account.id, knowledgeBaseId: a.kb.id, filename: 'x.png', bytes: PNG })).rejects.toBeInstanceOf(Response);
  });

  it('serves an image at the same address on the account host and on the help host, scoped and cacheable', async () => {
    const a = await setup();
    const b = await setup();
    const image = await saveKbImage({ ...a.scope, filename: 'logo.png', bytes: PNG });
    const onAccountHost = await app.request(image.url, { domain: a.domain });
    expect(onAccountHost.status).toBe(200);
    expect(onAccountHost.headers['content-type']).toBe('image/png');
    expect(onAccountHost.headers['content-length']).toBe(String(PNG.length));
    expect(onAccountHost.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(onAccountHost.headers['x-content-type-options']).toBe('nosniff');

    const onHelpHost = await app.request(image.url, { host: `${a.kb.slug}.help.test:3000` });
    expect(onHelpHost.status).toBe(200);
    expect(onHelpHost.headers['content-type']).toBe('image/png');
    expect((await app.request(`/hc/${a.kb.slug}${image.url}`, { domain: a.domain })).status).toBe(200);

    // Another account's host or help host does not have it.
    expect((await app.request(image.url, { domain: b.domain })).status).toBe(404);
    expect((await app.request(image.url, { host: `${b.kb.slug}.help.test:3000` })).status).toBe(404);
    expect((await app.request(`/kb-images/${'0'.repeat(32)}`, { domain: a.domain })).status).toBe(404);
    expect((await app.request('/kb-images/not-a-token', { domain: a.domain })).status).toBe(404);
  });
});

describe('the article sanitiser and images', () => {
  it('keeps knowledge-base image addresses and web images, refuses data:, cid:, javascript: and other paths', () => {
    const token = 'a'.repeat(32);
    expect(sanitizeArticleHtml(`<p><img src="/kb-images/${token}" alt="Step 1"></p>`)).toBe(`<p><img src="/kb-images/${token}" alt="Step 1" /></p>`);
    expect(sanitizeArticleHtml('<img src="https://example.com/a.png" alt="">')).toContain('src="https://example.com/a.png"');
    for (const src of [
      'data:image/png;base64,iVBORw0KGgo=',
      'cid:part1@example.com',
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      '/logout',
      `/kb-images/${token}/../../logout`,
      '//evil.example/x.png',
    ]) {
      expect(sanitizeArticleHtml(`<p>x<img src="${src}" alt="a"></p>`), src).toBe('<p>x</p>');
    }
  });
});
