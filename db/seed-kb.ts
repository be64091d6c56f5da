import { and, eq } from 'drizzle-orm';
import { getDb, schema } from './client';
import { createArticle, updateArticle } from '../app/models/knowledge-base/articles.server';
import { createCategory } from '../app/models/knowledge-base/categories.server';
import { createKnowledgeBase } from '../app/models/knowledge-base/knowledge-bases.server';

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
