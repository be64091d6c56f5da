import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { changeCampaignStatus, createMessageCampaign, getCampaign, scheduleCampaign, type MessageCampaignFields } from '../../app/models/campaigns/campaigns.server';
import { campaignReplyOpener, chatCampaignConversations, chatCampaignFor, chatCampaignToAnswer, recordChatCampaignShown } from '../../app/models/campaigns/chat.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { postVisitorMessage, startVisitor, userHashFor, type WidgetVisitor } from '../../app/models/channels/widget.server';
import { createSegment } from '../../app/models/crm/segments.server';
import { createTestAccount } from '../factories';

/** Message (in-product chat) campaigns (ADR 082): targeting, once per visitor, the shown and replied figures, tenancy. */

const base = (inboxId: number, senderUserId: number): MessageCampaignFields => ({
  name: 'Pricing help',
  inboxId,
  senderUserId,
  body: 'Questions about our plans? Ask me here.',
  pages: ['/pricing'],
  pageMatch: 'start',
  delaySeconds: 5,
  visitor: 'any',
  businessHoursOnly: false,
});

async function setup() {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Site' });
  return { a, accountId: a.account.id, inbox };
}

async function live(accountId: number, actorId: number, fields: MessageCampaignFields) {
  const row = await createMessageCampaign({ accountId, actorId, ...fields });
  await scheduleCampaign({ accountId, actorId, id: row.id });
  return row;
}

/** Answers as the widget does: the first message names the campaign it answers. */
async function reply(visitor: WidgetVisitor, campaignId: number, text: string) {
  return postVisitorMessage({ visitor, text, campaign: await campaignReplyOpener({ visitor, campaignId }) });
}

describe('message campaigns', () => {
  it('shows a live campaign on matching pages once per visitor; a reply opens a conversation that starts with the campaign', async () => {
    const { a, accountId, inbox } = await setup();
    const campaign = await live(accountId, a.owner.id, base(inbox.id, a.owner.id));
    expect((await getCampaign({ accountId, id: campaign.id }))?.status).toBe('sending');
    const { visitor } = await startVisitor({ inbox });
    expect(await chatCampaignFor({ visitor, url: 'https://shop.example/about' })).toBeNull();
    const shown = await chatCampaignFor({ visitor, url: 'https://shop.example/pricing/teams?x=1' });
    expect(shown).toEqual({ id: campaign.id, text: 'Questions about our plans? Ask me here.', author: 'Olive', delay: 5 });

    expect(await recordChatCampaignShown({ visitor, campaignId: campaign.id })).toBe(true);
    expect(await recordChatCampaignShown({ visitor, campaignId: campaign.id })).toBe(true);
    expect((await getCampaign({ accountId, id: campaign.id }))?.sentCount).toBe(1);
    // Once per visitor: shown, it is not offered again.
    expect(await chatCampaignFor({ visitor, url: 'https://shop.example/pricing' })).toBeNull();

    const { conversationId } = await reply(visitor, campaign.id, 'Is there a discount for schools?');
    const messages = await getDb()
      .select({ kind: schema.messages.kind, text: schema.messages.text, senderUserId: schema.messages.senderUserId })
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, accountId), eq(schema.messages.conversationId, conversationId)))
      .orderBy(asc(schema.messages.id));
    expect(messages.filter((m) => m.kind !== 'system')).toEqual([
      { kind: 'outgoing', text: 'Questions about our plans? Ask me here.', senderUserId: a.owner.id },
      { kind: 'incoming', text: 'Is there a discount for schools?', senderUserId: null },
    ]);
    const after = await getCampaign({ accountId, id: campaign.id });
    expect(after?.repliedCount).toBe(1);
    expect(await chatCampaignConversations({ accountId, campaignId: campaign.id })).toEqual([expect.objectContaining({ conversationId })]);
    // A second reply is a message in the same conversation, not a second reply to the campaign.
    expect(await chatCampaignToAnswer({ visitor, campaignId: campaign.id })).toBeNull();
  });

  it('honours new or returning, segments, pause and a future schedule', async () => {
    const { a, accountId, inbox } = await setup();
    const newOnly = await live(accountId, a.owner.id, { ...base(inbox.id, a.owner.id), name: 'New', pages: [], visitor: 'returning' });
    const { visitor } = await startVisitor({ inbox });
    // A browser first seen now, with no contact, is new.
    expect(await chatCampaignFor({ visitor, url: 'https://shop.example/' })).toBeNull();
    await getDb()
      .update(schema.widgetVisitors)
      .set({ createdAt: new Date(Date.now() - 3 * 86_400_000) })
      .where(and(eq(schema.widgetVisitors.accountId, accountId), eq(schema.widgetVisitors.id, visitor.id)));
    const old = { ...visitor, createdAt: new Date(Date.now() - 3 * 86_400_000) };
    expect((await chatCampaignFor({ visitor: old, url: 'https://shop.example/' }))?.id).toBe(newOnly.id);
    await changeCampaignStatus({ accountId, actorId: a.owner.id, id: newOnly.id, transition: 'pause' });
    expect(await chatCampaignFor({ visitor: old, url: 'https://shop.example/' })).toBeNull();

    // A segment campaign reaches only identified visitors whose contact is in it.
    await getDb().update(schema.inboxes).set({ secret: 'site-secret' }).where(eq(schema.inboxes.id, inbox.id));
    const segment = await createSegment({ accountId, actorId: a.owner.id, kind: 'contact', name: 'Germany', isStatic: false, conditions: { country: 'DE' }, memberIds: [] });
    const seg = await live(accountId, a.owner.id, { ...base(inbox.id, a.owner.id), name: 'DE', pages: [], segmentId: segment.id });
    const anonymous = (await startVisitor({ inbox })).visitor;
    expect(await chatCampaignFor({ visitor: anonymous, url: 'https://shop.example/' })).toBeNull();
    const [fresh] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    const known = (await startVisitor({ inbox: fresh, user: { id: 'u-1', hash: userHashFor('site-secret', 'u-1'), email: 'jo@example.test' } })).visitor;
    expect(await chatCampaignFor({ visitor: known, url: 'https://shop.example/' })).toBeNull();
    await getDb().update(schema.contacts).set({ country: 'DE' }).where(and(eq(schema.contacts.accountId, accountId), eq(schema.contacts.id, known.contactId!)));
    expect((await chatCampaignFor({ visitor: known, url: 'https://shop.example/' }))?.id).toBe(seg.id);

    // Scheduled for tomorrow: not live yet.
    const later = await createMessageCampaign({ accountId, actorId: a.owner.id, ...base(inbox.id, a.owner.id), name: 'Later', pages: [] });
    await scheduleCampaign({ accountId, actorId: a.owner.id, id: later.id, at: new Date(Date.now() + 86_400_000) });
    expect((await getCampaign({ accountId, id: later.id }))?.status).toBe('scheduled');
    const other = (await startVisitor({ inbox })).visitor;
    expect(await chatCampaignFor({ visitor: other, url: 'https://shop.example/' })).toBeNull();
    expect(await chatCampaignFor({ visitor: other, url: 'https://shop.example/', now: new Date(Date.now() + 2 * 86_400_000) })).toMatchObject({ id: later.id });
  });

  it("never shows or counts another account's campaign, and refuses another account's inbox and sender", async () => {
    const one = await setup();
    const two = await setup();
    const campaign = await live(one.accountId, one.a.owner.id, { ...base(one.inbox.id, one.a.owner.id), pages: [] });
    const { visitor } = await startVisitor({ inbox: two.inbox });
    expect(await chatCampaignFor({ visitor, url: 'https://shop.example/' })).toBeNull();
    expect(await recordChatCampaignShown({ visitor, campaignId: campaign.id })).toBe(false);
    expect(await chatCampaignToAnswer({ visitor, campaignId: campaign.id })).toBeNull();
    expect((await getCampaign({ accountId: one.accountId, id: campaign.id }))?.sentCount).toBe(0);
    await expect(createMessageCampaign({ accountId: two.accountId, actorId: two.a.owner.id, ...base(one.inbox.id, two.a.owner.id) })).rejects.toThrow('Messenger must be specified');
    await expect(createMessageCampaign({ accountId: two.accountId, actorId: two.a.owner.id, ...base(two.inbox.id, one.a.owner.id) })).rejects.toThrow('Sender must be specified');
  });
});
