import zlib from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from './client';
import { createArticle, updateArticle } from '../app/models/knowledge-base/articles.server';
import { createCategory } from '../app/models/knowledge-base/categories.server';
import { createKnowledgeBase, updateKnowledgeBaseSettings } from '../app/models/knowledge-base/knowledge-bases.server';
import { saveKbImage } from '../app/models/knowledge-base/images.server';

/** A small PNG logo drawn here (a teal rounded square with a white ring), so the demo needs no image file. */
export function demoLogoPng(size = 96) {
  const rows: Buffer[] = [];
  const c = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      const dx = Math.max(Math.abs(x - c) - (c - 18), 0);
      const dy = Math.max(Math.abs(y - c) - (c - 18), 0);
      const inSquare = Math.hypot(dx, dy) <= 18;
      const r = Math.hypot(x - c, y - c);
      const ring = r >= size * 0.2 && r <= size * 0.3;
      const [red, green, blue, alpha] = !inSquare ? [0, 0, 0, 0] : ring ? [255, 255, 255, 255] : [14, 116, 144, 255];
      row.writeUInt8(red, 1 + x * 4);
      row.writeUInt8(green, 2 + x * 4);
      row.writeUInt8(blue, 3 + x * 4);
      row.writeUInt8(alpha, 4 + x * 4);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The demo account's help centre: four categories of articles a small online shop would publish, written through
 * the model functions the screens use, one draft, one article with a later unpublished revision, and the reads
 * and "Was this helpful?" answers a few weeks would have given (ADR 049: every save is a version).
 */
const CATEGORIES: {
  name: string;
  description: string;
  articles: { title: string; body: string; views: number; helpful: number; unhelpful: number; draft?: boolean }[];
}[] = [
  {
    name: 'Getting started',
    description: 'Your first order, your account and how to reach us.',
    articles: [
      {
        title: 'Creating your account',
        body: '<p>Choose <b>Sign up</b> at the top of any page, enter your e-mail address and a password of at least 8 characters, then confirm the link we send you.</p><p>You can also check out as a guest; an account lets you follow orders and download invoices.</p>',
        views: 412,
        helpful: 37,
        unhelpful: 2,
      },
      {
        title: 'How to contact support',
        body: '<p>Write to <a href="mailto:support@parley-demo.example">support@parley-demo.example</a> or open the chat at the bottom right of the site. We answer within one working day, usually within two hours between 9:00 and 18:00 (Monday to Friday).</p>',
        views: 268,
        helpful: 19,
        unhelpful: 4,
      },
    ],
  },
  {
    name: 'Billing & invoices',
    description: 'Payments, invoices, refunds and VAT.',
    articles: [
      {
        title: 'Paying an invoice',
        body: '<p>Every invoice can be paid by card, bank transfer or PayPal.</p><ol><li>Open <b>Account → Invoices</b>.</li><li>Choose the invoice and select <b>Pay now</b>.</li><li>Pick a payment method and confirm.</li></ol><p>A bank transfer takes one to three working days to show as paid.</p>',
        views: 530,
        helpful: 44,
        unhelpful: 6,
      },
      {
        title: 'Downloading a copy of your invoice',
        body: '<p>Invoices are in <b>Account → Invoices</b> as PDF files. Need the company name or VAT number changed? Ask us before the end of the month and we will issue a corrected invoice.</p>',
        views: 301,
        helpful: 25,
        unhelpful: 1,
      },
      {
        title: 'Refund policy',
        body: '<p>You can return any item within <b>30 days</b> of delivery. Refunds go back to the original payment method within 5 working days of the return reaching our warehouse.</p><table><thead><tr><th>Payment</th><th>Refund time</th></tr></thead><tbody><tr><td>Card</td><td>3–5 days</td></tr><tr><td>PayPal</td><td>1–2 days</td></tr><tr><td>Bank transfer</td><td>5 days</td></tr></tbody></table>',
        views: 688,
        helpful: 51,
        unhelpful: 12,
      },
    ],
  },
  {
    name: 'Orders & shipping',
    description: 'Delivery times, tracking and returns.',
    articles: [
      {
        title: 'Tracking your parcel',
        body: '<p>As soon as your order leaves the warehouse we e-mail a tracking number. It is also shown on the order page under <b>Account → Orders</b>.</p><p>Tracking can take 24 hours to show the first scan.</p>',
        views: 744,
        helpful: 60,
        unhelpful: 9,
      },
      {
        title: 'Delivery times and costs',
        body: '<ul><li>Standard delivery: 2–4 working days, free above €50.</li><li>Express delivery: next working day when ordered before 14:00, €9.90.</li><li>International: 5–10 working days.</li></ul>',
        views: 455,
        helpful: 30,
        unhelpful: 3,
      },
      {
        title: 'Changing the delivery address',
        body: '<p>You can change the address until the order is packed (status <i>Preparing</i>). After that, contact us and we will ask the carrier to redirect it.</p>',
        views: 120,
        helpful: 8,
        unhelpful: 5,
      },
    ],
  },
  {
    name: 'Account & security',
    description: 'Passwords, e-mail address and privacy.',
    articles: [
      {
        title: 'Resetting your password',
        body: '<p>Choose <b>Forgot password</b> on the sign-in page and enter your e-mail address. The link we send is valid for one hour.</p><p>No e-mail after a few minutes? Check your spam folder.</p>',
        views: 390,
        helpful: 33,
        unhelpful: 2,
      },
      {
        title: 'Two-step verification',
        body: '<p>We are preparing two-step verification with an authenticator app. This article will explain how to turn it on.</p>',
        views: 0,
        helpful: 0,
        unhelpful: 0,
        draft: true,
      },
    ],
  },
];

export async function seedDemoKnowledgeBase(opts: { accountId: number; authorIds: number[] }) {
  const [first] = opts.authorIds;
  const kb = await createKnowledgeBase({
    accountId: opts.accountId,
    actorId: first,
    name: 'Help Centre',
    detail: 'Answers about orders, delivery, billing and your account.',
  });
  // Customization, Advanced and Version Control as a shop would set them (ADR 058).
  const logo = await saveKbImage({ accountId: opts.accountId, knowledgeBaseId: kb.id, filename: 'logo.png', bytes: demoLogoPng(), userId: first });
  await updateKnowledgeBaseSettings({
    accountId: opts.accountId,
    actorId: first,
    id: kb.id,
    patch: {
      logoToken: logo.token,
      brandColor: '#0e7490',
      headerTextColor: '#ffffff',
      headerLinks: [
        { label: 'Shop', url: 'https://shop.example.com' },
        { label: 'Service status', url: 'https://status.example.com' },
        { label: 'Contact us', url: 'https://shop.example.com/contact' },
      ],
      showViewCount: true,
      versionsKept: 50,
    },
  });
  let n = 0;
  for (const c of CATEGORIES) {
    const category = await createCategory({ accountId: opts.accountId, actorId: first, knowledgeBaseId: kb.id, name: c.name, description: c.description });
    for (const a of c.articles) {
      const actorId = opts.authorIds[n++ % opts.authorIds.length];
      const who = { accountId: opts.accountId, actorId, knowledgeBaseId: kb.id };
      const article = await createArticle({ ...who, title: a.title, categoryId: category.id, body: a.body, publish: !a.draft });
      if (a.views || a.helpful || a.unhelpful) {
        await getDb()
          .update(schema.kbArticles)
          .set({ viewCount: a.views, helpfulCount: a.helpful, unhelpfulCount: a.unhelpful })
          .where(and(eq(schema.kbArticles.accountId, opts.accountId), eq(schema.kbArticles.id, article.id)));
      }
      if (a.title === 'Refund policy') {
        // A revision in progress: the published version stays live (ADR 049).
        await updateArticle({
          ...who,
          id: article.id,
          title: a.title,
          categoryId: category.id,
          body: a.body.replace('<b>30 days</b>', '<b>60 days</b> (from 1 January)'),
        });
      }
    }
  }
  return kb;
}
