import { PRIORITIES } from './schema/inbox-constants';
import zlib from 'node:zlib';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema } from './client';
import { buildDemoPlan, DEMO_TAGS, type DemoPlan } from './seed-plan';
import { createBusinessHours } from '../app/models/automation/business-hours.server';
import { createRoutingRule } from '../app/models/automation/routing.server';
import { createSlaPolicy } from '../app/models/automation/sla-policies.server';
import { applySla } from '../app/models/automation/sla.server';
import { createWorkflow, setWorkflowActive, updateWorkflow } from '../app/models/automation/workflows.server';
import { createWebInbox } from '../app/models/channels/messenger-settings.server';
import { createCompany } from '../app/models/crm/companies.server';
import { createContact } from '../app/models/crm/contacts.server';
import { addNote } from '../app/models/crm/notes.server';
import { createSegment } from '../app/models/crm/segments.server';
import { createEmailInbox } from '../app/models/email/email-inboxes.server';
import { saveAttachment } from '../app/models/inbox/attachments.server';
import { composeInlineReply, newInlineContentId } from '../app/models/inbox/inline-media.server';
import { snoozeConversation } from '../app/models/inbox/conversations.server';
import { updateInbox } from '../app/models/inbox/inboxes.server';
import { previewOf, refreshConversationSearch } from '../app/models/inbox/messages.server';
import { createCannedResponse } from '../app/models/productivity/canned-responses.server';
import { createEmailTemplate } from '../app/models/productivity/email-templates.server';
import { addTemplateAttachments } from '../app/models/productivity/template-attachments.server';
import { createTag } from '../app/models/productivity/tags.server';
import { normalisePhone } from '../app/utils/phone';

/**
 * Writes the demo plan into a fresh demo account. Settings (inboxes, tags, hours, SLA, routing, workflows,
 * contacts, companies, segments, notes) go through the model functions the screens use. Two months of past
 * conversations are written in bulk, with the timestamps they would have had (a model function stamps "now"),
 * then given their SLA due times by applySla and their search words by refreshConversationSearch, as live ones
 * are. Past automation runs are recorded as the engine records them, against past events it will not replay.
 */

type User = { id: number; firstName: string; lastName: string };

export async function seedDemoData(opts: { accountId: number; users: User[]; teams: { Support: number; Billing: number }; now: Date }) {
  const { accountId, users } = opts;
  const owner = users[0];
  const actorId = owner.id;
  const who = { accountId, actorId };
  const plan: DemoPlan = buildDemoPlan({ now: opts.now });
  const db = getDb();

  // Inboxes: two mailboxes and the website chat; office hours on the support mailbox and the chat.
  const supportInbox = await createEmailInbox({ ...who, name: 'Support', email: 'support@parley-demo.example', mode: 'forwarding' });
  const billingInbox = await createEmailInbox({ ...who, name: 'Billing', email: 'billing@parley-demo.example', mode: 'forwarding' });
  const chatInbox = await createWebInbox({ ...who, name: 'Website chat' });
  const inboxOf = { support: supportInbox, billing: billingInbox, chat: chatInbox };
  const weekdays = [1, 2, 3, 4, 5].map((day) => ({ day, startTime: '09:00', endTime: '17:30' }));
  const officeHours = await createBusinessHours({
    ...who,
    name: 'Office hours (Berlin)',
    timezone: 'Europe/Berlin',
    allDay: false,
    haveHolidays: true,
    timings: weekdays,
    holidays: [{ name: 'Christmas Day', dateVal: `${opts.now.getUTCFullYear()}-12-25` }],
  });
  await createBusinessHours({ ...who, name: 'Around the clock', timezone: 'UTC', allDay: true, haveHolidays: false, timings: [], holidays: [] });
  for (const inbox of [supportInbox, chatInbox]) await updateInbox({ ...who, id: inbox.id, changes: { businessHoursId: officeHours.id } });

  const tagIds = new Map<string, number>();
  for (const t of DEMO_TAGS) tagIds.set(t.name, (await createTag({ ...who, name: t.name, color: t.color })).id);
  const tagsOf = (names: string[]) => names.map((n) => tagIds.get(n)!).filter(Boolean);

  await createSlaPolicy({
    ...who,
    name: 'Standard support',
    inboxIds: [supportInbox.id, billingInbox.id, chatInbox.id],
    targets: [
      { priority: 'critical', response: { value: 30, unit: 'minute' }, resolve: { value: 4, unit: 'hour' } },
      { priority: 'high', response: { value: 1, unit: 'hour' }, resolve: { value: 8, unit: 'hour' } },
      { priority: 'medium', response: { value: 4, unit: 'hour' }, resolve: { value: 2, unit: 'day' } },
      { priority: 'low', response: { value: 8, unit: 'hour' }, resolve: { value: 5, unit: 'day' } },
      { priority: 'default', response: { value: 4, unit: 'hour' }, resolve: { value: 3, unit: 'day' } },
    ],
    isEscalate: true,
    escalateTo: ['admin@parley.local'],
    isActive: true,
  });
  await createRoutingRule({ ...who, name: 'Billing to the billing team', inboxId: billingInbox.id, rule: 'team', assignLimit: 10, teamId: opts.teams.Billing, subrules: [] });
  await createRoutingRule({ ...who, name: 'Chats in turn', inboxId: chatInbox.id, rule: 'round_robin', assignLimit: 5, teamId: null, subrules: [] });

  const canned = [
    ['Greeting', 'Hi {{contact.first_name}}, thanks for reaching out! Let me look into this for you.'],
    ['Password reset', 'You can reset your password from the sign-in page with "Forgot password". The link is valid for one hour.'],
    ['Refund issued', 'I have issued the refund; it shows on your statement within 5 to 10 business days.'],
    ['Closing', 'Glad I could help! If anything else comes up, just reply to this message.'],
    ['Feature request logged', 'Thanks for the idea! I have logged it with our product team and will let you know when it ships.'],
    ['Need more details', 'Could you send a screenshot and the time it happened? That helps us find it in our logs.'],
  ];
  for (const [name, message] of canned) await createCannedResponse({ ...who, name, message });
  const invoiceTemplate = await createEmailTemplate({ ...who, name: 'Invoice corrected', subject: 'Your corrected invoice', body: 'Hello,\n\nplease find your corrected invoice attached, with our payment details.\n\nKind regards,\nThe billing team' });
  // A template's attachment (ADR 149): sent with every reply the template goes into.
  await addTemplateAttachments({
    ...who,
    templateId: invoiceTemplate.id,
    files: [
      {
        name: 'payment-details.txt',
        type: 'text/plain',
        bytes: new TextEncoder().encode('Acme Support Ltd\nIBAN: GB33 BUKB 2020 1555 5555 55\nBIC: BUKBGB22\nPlease quote your invoice number with the transfer.\n'),
      },
    ],
  });
  await createEmailTemplate({ ...who, name: 'Outage follow-up', subject: 'About yesterday’s interruption', body: 'Hello,\n\nhere is what happened yesterday and what we changed so that it does not happen again.' });

  // CRM: companies, contacts (through the CRM's own reading of phone numbers), notes, segments.
  const phone = (typed: string | null) => {
    if (!typed) return null;
    const read = normalisePhone(typed);
    return read.ok ? read.value : null;
  };
  const companyIds = new Map<string, number>();
  for (const c of plan.companies) {
    const row = await createCompany({
      ...who,
      input: { name: c.name, domain: c.domain, url: `https://${c.domain}`, description: c.description, phone: phone(c.phone), address: { country: c.country, locality: c.city }, tagIds: tagsOf(c.tags) },
    });
    companyIds.set(c.name, row.id);
  }
  const contactIds: number[] = [];
  for (const c of plan.contacts) {
    const row = await createContact({
      ...who,
      input: {
        firstName: c.firstName,
        lastName: c.lastName,
        email: c.email,
        phone: phone(c.phone),
        title: c.title,
        companyName: c.company,
        address: { country: c.country, locality: c.city },
        assigneeId: c.owner === null ? null : users[c.owner].id,
        tagIds: tagsOf(c.tags),
      },
    });
    contactIds.push(row.id);
  }
  for (const n of plan.contactNotes) await addNote({ accountId, actorId: users[n.agent].id, target: { contactId: contactIds[n.contact] }, body: n.body });
  const [firstCompany] = plan.companies;
  await addNote({ ...who, target: { companyId: companyIds.get(firstCompany.name)! }, body: 'Key account: quarterly review with their support lead.' });
  await createSegment({ ...who, kind: 'contact', name: 'VIP customers', isStatic: false, conditions: { tag: tagIds.get('vip')! }, memberIds: [] });
  await createSegment({ ...who, kind: 'contact', name: 'Germany', isStatic: false, conditions: { country: 'DE' }, memberIds: [] });
  await createSegment({ ...who, kind: 'company', name: 'Key accounts', isStatic: true, conditions: {}, memberIds: [...companyIds.values()].slice(0, 4) });

  // Two months of conversations, in bulk, with their messages, tags and attachments.
  const convRows = await db
    .insert(schema.conversations)
    .values(
      plan.conversations.map((c) => {
        const last = c.messages.filter((m) => m.kind !== 'note').at(-1)!;
        return {
          accountId,
          inboxId: inboxOf[c.inbox].id,
          contactId: contactIds[c.contact],
          subject: c.subject,
          status: c.status,
          priority: c.priority,
          sourceType: c.inbox === 'chat' ? ('web' as const) : ('email' as const),
          assigneeId: c.assignee === null ? null : users[c.assignee].id,
          teamId: c.team ? opts.teams[c.team] : null,
          lastMessageAt: last.at,
          lastMessagePreview: previewOf(last.text),
          messageCount: c.messages.filter((m) => m.kind !== 'note').length,
          createdAt: c.createdAt,
          updatedAt: c.resolvedAt ?? last.at,
          resolvedAt: c.resolvedAt,
          firstRespondedAt: c.messages.find((m) => m.kind === 'outgoing')?.at ?? null,
        };
      }),
    )
    .returning({ id: schema.conversations.id });
  const convIds = convRows.map((r) => r.id);

  const messageValues = plan.conversations.flatMap((c, i) =>
    c.messages.map((m) => ({
      accountId,
      conversationId: convIds[i],
      kind: m.kind,
      senderUserId: m.agent === null ? null : users[m.agent].id,
      senderContactId: m.kind === 'incoming' ? contactIds[c.contact] : null,
      text: m.text,
      deliveryStatus: m.kind === 'outgoing' ? ('sent' as const) : null,
      email:
        c.inbox !== 'chat' && m.kind !== 'note'
          ? m.kind === 'incoming'
            ? { from: plan.contacts[c.contact].email, to: [inboxOf[c.inbox].email!] }
            : { from: inboxOf[c.inbox].email!, to: [plan.contacts[c.contact].email] }
          : null,
      createdAt: m.at,
    })),
  );
  const messageRows = await db.insert(schema.messages).values(messageValues).returning({ id: schema.messages.id });
  let k = 0;
  for (const c of plan.conversations)
    for (const m of c.messages) {
      const messageId = messageRows[k++].id;
      if (m.attachment) await saveAttachment({ accountId, messageId, filename: m.attachment.filename, contentType: m.attachment.contentType, bytes: Buffer.from(m.attachment.body) });
    }
  await seedInlineScreenshot({ accountId, plan, messageIds: messageRows.map((r) => r.id), convIds });
  const tagLinks = plan.conversations.flatMap((c, i) => tagsOf(c.tags).map((tagId) => ({ conversationId: convIds[i], tagId, accountId })));
  if (tagLinks.length) await db.insert(schema.conversationTags).values(tagLinks);
  await db.transaction((tx) => refreshConversationSearch(tx, { accountId, conversationIds: convIds }));

  // Due times as the SLA policy sets them (business hours included); past ones met or breached as it happened.
  for (const id of convIds) await applySla({ accountId, conversationId: id });
  const now = sql`${opts.now.toISOString()}::timestamptz`;
  await db.execute(sql`
    update ${schema.conversations} set
      response_breached_at = case when first_response_due_at < coalesce(first_responded_at, ${now}) then first_response_due_at end,
      resolve_breached_at = case when resolve_due_at < coalesce(resolved_at, ${now}) then resolve_due_at end
    where account_id = ${accountId} and id in ${sql.raw(`(${convIds.join(',')})`)}`);
  // A few open conversations are put off by their agent, as the snooze menu does.
  for (const [i, c] of plan.conversations.entries())
    if (c.status === 'snoozed')
      await db.transaction(async (tx) => {
        await tx
          .update(schema.conversations)
          .set({ status: 'open' })
          .where(and(eq(schema.conversations.accountId, accountId), eq(schema.conversations.id, convIds[i])));
      }).then(() => snoozeConversation({ accountId, actorId: c.assignee === null ? null : users[c.assignee].id, id: convIds[i], until: new Date(opts.now.getTime() + ((i % 5) + 1) * 86_400_000) }));

  await seedWorkflows({ accountId, actorId, plan, convIds, contactIds, users, tagIds, teams: opts.teams });
}

/** Three workflows, switched on, with the runs they had on the past conversations. */
async function seedWorkflows(opts: {
  accountId: number;
  actorId: number;
  plan: DemoPlan;
  convIds: number[];
  contactIds: number[];
  users: User[];
  tagIds: Map<string, number>;
  teams: { Support: number; Billing: number };
}) {
  const { accountId, actorId, plan, convIds, users, tagIds } = opts;
  const sam = users[2];
  const name = (u: User) => `${u.firstName} ${u.lastName}`;
  const defs = [
    {
      name: 'Urgent to Sam',
      description: 'Anything marked urgent in the subject goes to Sam at high priority.',
      input: {
        event: 'conversation_created' as const,
        conditionOperator: 'and' as const,
        conditions: [],
        filters: [{ field: 'subject' as const, op: 'contains' as const, value: 'urgent' }],
        actions: [
          { type: 'assign_user' as const, userId: sam.id },
          { type: 'set_priority' as const, priority: 'high' as const },
        ],
      },
      matches: (c: DemoPlan['conversations'][number]) => /urgent/i.test(c.subject),
      results: (id: number) => [`assigned conversation #${id} to ${name(sam)}`, 'priority set to high'],
    },
    {
      name: 'Tag refunds',
      description: 'Conversations asking for a refund get the refund tag.',
      input: {
        event: 'conversation_created' as const,
        conditionOperator: 'and' as const,
        conditions: [],
        filters: [{ field: 'subject' as const, op: 'contains' as const, value: 'refund' }],
        actions: [{ type: 'assign_tag' as const, tagIds: [tagIds.get('refund')!] }],
      },
      matches: (c: DemoPlan['conversations'][number]) => /refund/i.test(c.subject),
      results: (id: number) => [`tagged conversation #${id} with refund`],
    },
    {
      name: 'Escalate breaches',
      description: 'A breached SLA raises the priority and leaves a note for the team lead.',
      input: {
        event: 'sla_breached' as const,
        conditionOperator: 'and' as const,
        conditions: [],
        filters: [],
        actions: [
          { type: 'set_priority' as const, priority: 'critical' as const },
          { type: 'leave_note' as const, note: 'SLA breached: please take a look.' },
        ],
      },
      matches: () => false,
      results: (id: number) => ['priority set to critical', `note on conversation #${id}`],
    },
  ];
  const db = getDb();
  const breached = await db
    .select({ id: schema.conversations.id, at: schema.conversations.responseBreachedAt })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, accountId), inArray(schema.conversations.id, opts.convIds), sql`${schema.conversations.responseBreachedAt} is not null`));
  const breachedAt = new Map(breached.map((b) => [b.id, b.at!]));
  // A past event is one event whichever workflows answered it (as the engine records it): shared by key, with the
  // payload a live event of its kind carries, so the analytics projections read it as they read a live one.
  const convRows = await db
    .select({
      id: schema.conversations.id,
      inboxId: schema.conversations.inboxId,
      contactId: schema.conversations.contactId,
      sourceType: schema.conversations.sourceType,
      subject: schema.conversations.subject,
      slaPolicyId: schema.conversations.slaPolicyId,
      priority: schema.conversations.priority,
    })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, accountId), inArray(schema.conversations.id, opts.convIds)));
  const convOf = new Map(convRows.map((c) => [c.id, c]));
  const pastEvents = new Map<string, number>();

  for (const def of defs) {
    const wf = await createWorkflow({ accountId, actorId, name: def.name, description: def.description });
    await updateWorkflow({ accountId, actorId, id: wf.id, input: { name: def.name, description: def.description, ...def.input } });
    await setWorkflowActive({ accountId, actorId, id: wf.id, isActive: true });

    // Past runs: the last fifty conversations (or breaches), each with its verdict and what the actions did.
    const runs = plan.conversations
      .map((c, i) => ({ c, id: convIds[i], at: def.input.event === 'sla_breached' ? breachedAt.get(convIds[i]) : c.createdAt }))
      .filter((r): r is { c: (typeof plan.conversations)[number]; id: number; at: Date } => !!r.at)
      .slice(-50);
    if (runs.length === 0) continue;
    // The past events the runs answer: recorded as handled history (no job is queued for them).
    const key = (r: { id: number }) => `${def.input.event}:${r.id}`;
    const missing = runs.filter((r) => !pastEvents.has(key(r)));
    if (missing.length > 0) {
      const inserted = await db
        .insert(schema.domainEvents)
        .values(
          missing.map((r) => {
            const c = convOf.get(r.id)!;
            return {
              accountId,
              type: def.input.event,
              subjectType: 'conversation',
              subjectId: String(r.id),
              payload:
                def.input.event === 'conversation_created'
                  ? { conversationId: r.id, inboxId: c.inboxId, contactId: c.contactId, sourceType: c.sourceType, subject: c.subject }
                  : { target: 'response', policyId: c.slaPolicyId, priority: PRIORITIES[c.priority], inboxId: c.inboxId, contactId: c.contactId },
              actorType: 'system' as const,
              occurredAt: r.at,
            };
          }),
        )
        .returning({ id: schema.domainEvents.id });
      missing.forEach((r, i) => pastEvents.set(key(r), inserted[i].id));
    }
    const events = runs.map((r) => ({ id: pastEvents.get(key(r))! }));
    const lines = runs.flatMap((r, i): (typeof schema.automationRunLog.$inferInsert)[] => {
      const matched = def.input.event === 'sla_breached' || def.matches(r.c);
      const base = { accountId, eventId: events[i].id, eventType: def.input.event, ruleId: wf.id, conversationId: r.id, contactId: opts.contactIds[r.c.contact] };
      const at = (s: number) => new Date(r.at.getTime() + s * 1000);
      if (!matched) return [{ ...base, step: 'not_matched', detail: { reason: 'filter 1 (subject) does not match' }, createdAt: at(1) }];
      return [
        { ...base, step: 'matched', detail: { reason: 'every condition and filter holds' }, createdAt: at(1) },
        ...def.results(r.id).map((result, index) => ({
          ...base,
          step: 'action_applied' as const,
          actionIndex: index,
          actionType: def.input.actions[index].type,
          detail: { result },
          createdAt: at(2 + index),
        })),
      ];
    });
    await db.insert(schema.automationRunLog).values(lines);
  }
}

/**
 * The first agent answer by email shows where to click with a screenshot inside the message (ADR 156): an inline
 * image as an agent's reply stores it, so the demo's thread shows one.
 */
async function seedInlineScreenshot(opts: { accountId: number; plan: DemoPlan; messageIds: number[]; convIds: number[] }) {
  let k = 0;
  for (const [i, c] of opts.plan.conversations.entries())
    for (const m of c.messages) {
      const messageId = opts.messageIds[k++];
      if (c.inbox === 'chat' || m.kind !== 'outgoing') continue;
      const row = await saveAttachment({ accountId: opts.accountId, messageId, filename: 'where-to-click.png', checkedType: 'image/png', bytes: screenshotPng(), contentId: newInlineContentId() });
      const body = composeInlineReply(`${m.text}\n\nHere is where to click:\n[image]`, [{ id: row.id, filename: row.filename, contentId: row.contentId! }]);
      await getDb()
        .update(schema.messages)
        .set({ text: body.text, html: body.html })
        .where(and(eq(schema.messages.accountId, opts.accountId), eq(schema.messages.id, messageId), eq(schema.messages.conversationId, opts.convIds[i])));
      return;
    }
}

/** A small picture of a settings panel with a highlighted button: a real PNG, drawn here so the seed needs no file. */
function screenshotPng(width = 160, height = 90) {
  const chunk = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), body]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const bar = y < 14;
      const line = y > 24 && y < 64 && (y - 24) % 12 < 6 && x > 12 && x < 100;
      const button = y > 66 && y < 82 && x > 104 && x < 150;
      const [r, g, b] = bar ? [79, 70, 229] : button ? [234, 88, 12] : line ? [209, 213, 219] : [249, 250, 251];
      row.set([r, g, b], 1 + x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}
