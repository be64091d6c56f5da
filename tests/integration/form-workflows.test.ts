import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createWorkflow } from '../../app/models/automation/workflows.server';
import { createForm, submitForm } from '../../app/models/forms/forms.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('form_submitted drives workflows (ADR 087)', () => {
  it('the builder offers Form submitted with its actions; a submission tags and notes the contact, or its conversation when the form opens one', async () => {
    const a = await createTestAccount();
    const who = { accountId: a.account.id, actorId: a.owner.id };
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const [tag] = await getDb().insert(schema.tags).values({ accountId: a.account.id, name: 'lead' }).returning();
    const workflow = await createWorkflow({ ...who, name: 'Form leads', description: '' });
    const path = `/workflows/builder/${workflow.id}`;
    const page = await app.request(path, { domain: a.domain, cookie });
    expect(page.text).toContain('<option value="form_submitted">Form submitted</option>');
    // An action the event does not offer is refused.
    const refused = await app.request(path, {
      domain: a.domain,
      cookie,
      form: { intent: 'save', name: 'Form leads', event: 'form_submitted', conditionOperator: 'and', 'actions[0].type': 'delete_conversation' },
    });
    expect(refused.status).toBe(400);
    const saved = await app.request(path, {
      domain: a.domain,
      cookie,
      form: {
        intent: 'save',
        name: 'Form leads',
        event: 'form_submitted',
        conditionOperator: 'and',
        'actions[0].type': 'assign_tag',
        'actions[0].tagIds': [String(tag.id)],
        'actions[1].type': 'leave_note',
        'actions[1].note': 'Came in through a form',
      },
    });
    expect(saved.status).toBe(302);
    await getDb().update(schema.automationRules).set({ isActive: true }).where(eq(schema.automationRules.id, workflow.id));

    // A form without an inbox: the contact is tagged and gets the note.
    const leads = await createForm({ ...who, name: 'Leads' });
    const [nameKey, emailKey] = leads.fields.map((f) => f.key);
    let after = await lastEventId(a.account.id);
    await submitForm({ accountId: a.account.id, form: leads, answers: { [nameKey]: 'Lena Lead', [emailKey]: 'lena@example.test' } });
    await drainEvents(a.account.id, { after });
    const [lena] = await getDb().select().from(schema.contacts).where(and(eq(schema.contacts.accountId, a.account.id), eq(schema.contacts.email, 'lena@example.test')));
    expect((await getDb().select().from(schema.contactTags).where(eq(schema.contactTags.contactId, lena.id))).map((t) => t.tagId)).toEqual([tag.id]);
    expect((await getDb().select().from(schema.crmNotes).where(eq(schema.crmNotes.contactId, lena.id))).map((n) => n.body)).toEqual(['Came in through a form']);

    // A form that opens a conversation: the conversation is tagged and gets the note.
    const inbox = await createInbox({ ...who, name: 'Requests', channelType: 'email' });
    const requests = await createForm({ ...who, name: 'Requests' });
    await getDb().update(schema.forms).set({ inboxId: inbox.id }).where(eq(schema.forms.id, requests.id));
    const [rn, re] = requests.fields.map((f) => f.key);
    after = await lastEventId(a.account.id);
    const response = await submitForm({ accountId: a.account.id, form: { ...requests, inboxId: inbox.id }, answers: { [rn]: 'Omar Open', [re]: 'omar@example.test' } });
    await drainEvents(a.account.id, { after });
    // The engine filed the response (ADR 112) before the workflow read the event: it acted on that conversation.
    const [filed] = await getDb().select().from(schema.formResponses).where(eq(schema.formResponses.id, response.id));
    expect(response.conversationId).toBeNull();
    const conversationId = filed.conversationId!;
    expect(conversationId).toBeTruthy();
    expect((await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversationId))).map((t) => t.tagId)).toEqual([tag.id]);
    const notes = await getDb().select().from(schema.messages).where(and(eq(schema.messages.conversationId, conversationId), eq(schema.messages.kind, 'note')));
    expect(notes.map((n) => n.text)).toEqual(['Came in through a form']);
  });
});
