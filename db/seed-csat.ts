import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import crypto from 'node:crypto';
import { getDb, schema } from './client';
import { saveCsatSurvey } from '../app/models/csat/csat.server';
import { CSAT_DEFAULTS } from '../app/models/csat/constants';

/**
 * The demo's customer satisfaction (issue 15): an email survey on the email inboxes with a verified address, a chat
 * survey on the website chat, and ratings of the last month's resolved conversations as customers would give them
 * (mostly happy, a few unhappy with a comment), so Settings → Email Survey shows CSAT by agent, team, inbox and day.
 */
export async function seedDemoCsat(opts: { accountId: number; ownerId: number; now?: Date }) {
  const db = getDb();
  const now = opts.now ?? new Date();
  // The demo's mailboxes stand for forwarding set up long ago: verified, so they may send rating emails.
  await db
    .update(schema.inboxes)
    .set({ forwardingVerifiedAt: new Date(now.getTime() - 90 * 86_400_000) })
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.channelType, 'email'), isNotNull(schema.inboxes.email)));
  const inboxes = await db.select().from(schema.inboxes).where(eq(schema.inboxes.accountId, opts.accountId));
  const email = inboxes.filter((i) => i.channelType === 'email' && i.email && i.forwardingVerifiedAt);
  const web = inboxes.filter((i) => i.channelType === 'web');
  const who = { accountId: opts.accountId, actorId: opts.ownerId };
  const surveys: Record<number, number> = {};
  if (email.length) {
    const s = await saveCsatSurvey({
      ...who,
      id: 'new',
      input: {
        kind: 'email',
        inboxIds: email.map((i) => i.id),
        subject: 'How did we do, {{NAME}}?',
        heading: 'Rate our support',
        subHeading: 'One click is all it takes.',
        footer: 'Thanks for shopping with us.',
        ratingsType: 'star',
        commentEnabled: true,
        commentEnabledBelow: CSAT_DEFAULTS.commentEnabledBelow,
        commentTitle: CSAT_DEFAULTS.commentTitle,
        finishText: CSAT_DEFAULTS.finishText,
        allowMultipleFeedback: false,
      },
    });
    for (const i of email) surveys[i.id] = s!.id;
  }
  if (web.length) {
    const s = await saveCsatSurvey({ ...who, id: 'new', input: { kind: 'chat', inboxIds: web.map((i) => i.id), subject: 'How was this chat?', ratingsType: 'emoji', commentEnabled: true, allowMultipleFeedback: false } });
    for (const i of web) surveys[i.id] = s!.id;
  }
  const ids = Object.keys(surveys).map(Number);
  if (!ids.length) return;
  const conversations = await db
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, opts.accountId), inArray(schema.conversations.inboxId, ids), isNotNull(schema.conversations.contactId)))
    .limit(60);
  const comments = ['The answer came the next day.', 'I had to explain it twice.', 'Still waiting for the refund.'];
  const rows = conversations.map((c, n) => {
    // A steady spread: four in five happy (4–5), the rest unhappy with a comment; one in eight not rated yet.
    const rating = n % 8 === 7 ? null : n % 5 === 4 ? 1 + (n % 3) : 4 + (n % 2);
    const kind = inboxes.find((i) => i.id === c.inboxId)!.channelType === 'web' ? ('chat' as const) : ('email' as const);
    const at = new Date(now.getTime() - ((n * 11) % 28) * 86_400_000 - (n % 9) * 3_600_000);
    return {
      accountId: opts.accountId,
      csatSurveyId: surveys[c.inboxId],
      kind,
      conversationId: c.id,
      inboxId: c.inboxId,
      contactId: c.contactId,
      assigneeId: c.assigneeId,
      teamId: c.teamId,
      token: crypto.randomBytes(24).toString('hex'),
      rating,
      comment: rating !== null && rating < 3 ? comments[n % comments.length] : null,
      requestedAt: at,
      ratedAt: rating === null ? null : new Date(at.getTime() + 40 * 60_000),
    };
  });
  if (rows.length) await db.insert(schema.csatRatings).values(rows).onConflictDoNothing();
}
