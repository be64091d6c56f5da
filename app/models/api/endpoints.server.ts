import { and, desc, eq, isNull, lt } from 'drizzle-orm';
import { z } from 'zod';
import { getDb, schema } from '../../../db/client';
import { PRIORITIES, SOURCE_TYPES } from '../../../db/schema/inbox-constants';
import { createCompany } from '../crm/companies.server';
import { createContact } from '../crm/contacts.server';
import { assignConversations, getConversation, openConversation, postMessage, setConversationPriority, setConversationStatus } from '../inbox/conversations.server';
import { TAG_COLOURS } from '../productivity/constants';
import { createTag } from '../productivity/tags.server';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/constants';
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, publicEndpoint, redeliverWebhook, type WebhookEndpoint } from '../webhooks/webhooks.server';
import { decodeCursor, defineEndpoint, iso, notFound, page, PageQuery, PathIdSchema, RowIdSchema, type Endpoint } from './http.server';

/**
 * Every Developer API endpoint (ADR 076): its zod schemas (validation and the OpenAPI document, one source) and the
 * domain function it calls. Writes go through the same app/models functions as the UI, so the same domain events
 * are written in the same transactions; they are done in the name of the user who created the key.
 */

const Id = PathIdSchema;
const IdParams = z.object({ id: Id });
const DateTime = z.string().meta({ format: 'date-time' });
const Error = z
  .object({ error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }) })
  .meta({ id: 'Error', description: 'Every error has this shape' });
export const ErrorSchema = Error;
const listOf = (item: z.ZodType, id: string) => z.object({ data: z.array(item), nextCursor: z.string().nullable() }).meta({ id });

// ---------------------------------------------------------------------------------------------------------
// Resources

const Conversation = z
  .object({
    id: z.number().int(),
    inboxId: z.number().int(),
    contactId: z.number().int().nullable(),
    subject: z.string(),
    status: z.enum(['open', 'pending', 'snoozed', 'resolved']),
    priority: z.enum(PRIORITIES),
    sourceType: z.string(),
    assigneeId: z.number().int().nullable(),
    teamId: z.number().int().nullable(),
    messageCount: z.number().int(),
    lastMessageAt: DateTime.nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Conversation' });

const Message = z
  .object({
    id: z.number().int(),
    conversationId: z.number().int(),
    kind: z.enum(['incoming', 'outgoing', 'note', 'system']),
    text: z.string(),
    senderUserId: z.number().int().nullable(),
    senderContactId: z.number().int().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Message' });

const Contact = z
  .object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    title: z.string().nullable(),
    companyId: z.number().int().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Contact' });

const Company = z
  .object({ id: z.number().int(), name: z.string(), domain: z.string().nullable(), url: z.string().nullable(), phone: z.string().nullable(), createdAt: DateTime })
  .meta({ id: 'Company' });
const Tag = z.object({ id: z.number().int(), name: z.string(), color: z.string() }).meta({ id: 'Tag' });
const Inbox = z.object({ id: z.number().int(), name: z.string(), channelType: z.string() }).meta({ id: 'Inbox' });
const User = z.object({ id: z.number().int(), firstName: z.string(), lastName: z.string(), email: z.string(), status: z.string() }).meta({ id: 'User' });
const Workflow = z.object({ id: z.number().int(), name: z.string(), isActive: z.boolean(), createdAt: DateTime }).meta({ id: 'Workflow' });
const Webhook = z
  .object({
    id: z.number().int(),
    url: z.string(),
    description: z.string(),
    eventTypes: z.array(z.string()),
    active: z.boolean(),
    createdAt: DateTime,
  })
  .meta({ id: 'Webhook' });
const WebhookAttempt = z
  .object({
    id: z.number().int(),
    trigger: z.enum(['automatic', 'manual']),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int(),
    createdAt: DateTime,
  })
  .meta({ id: 'WebhookAttempt' });
const WebhookDelivery = z
  .object({
    id: z.number().int(),
    messageId: z.string().meta({ description: 'The webhook-id header of every attempt' }),
    eventType: z.string(),
    status: z.enum(['pending', 'delivered', 'failed', 'dead']),
    nextAttemptAt: DateTime.nullable(),
    payload: z.record(z.string(), z.unknown()),
    attempts: z.array(WebhookAttempt),
    createdAt: DateTime,
  })
  .meta({ id: 'WebhookDelivery' });
const DeliveryParams = z.object({ id: Id, deliveryId: Id });
const WebhookCreated = Webhook.extend({ secret: z.string().meta({ description: 'The signing secret (whsec_...), shown only in this answer' }) }).meta({ id: 'WebhookCreated' });

type Row<T extends keyof typeof schema> = (typeof schema)[T] extends { $inferSelect: infer R } ? R : never;

const conversationOut = (c: Row<'conversations'>) => ({
  id: c.id,
  inboxId: c.inboxId,
  contactId: c.contactId,
  subject: c.subject,
  status: c.status,
  priority: PRIORITIES[c.priority] ?? 'default',
  sourceType: c.sourceType,
  assigneeId: c.assigneeId,
  teamId: c.teamId,
  messageCount: c.messageCount,
  lastMessageAt: iso(c.lastMessageAt),
  createdAt: iso(c.createdAt)!,
});
const messageOut = (m: Row<'messages'>) => ({
  id: m.id,
  conversationId: m.conversationId,
  kind: m.kind,
  text: m.text,
  senderUserId: m.senderUserId,
  senderContactId: m.senderContactId,
  createdAt: iso(m.createdAt)!,
});
const contactOut = (c: Row<'contacts'>) => ({
  id: c.id,
  firstName: c.firstName,
  lastName: c.lastName,
  email: c.email,
  phone: c.phone,
  title: c.title,
  companyId: c.companyId,
  createdAt: iso(c.createdAt)!,
});
const companyOut = (c: Row<'companies'>) => ({ id: c.id, name: c.name, domain: c.domain, url: c.url, phone: c.phone, createdAt: iso(c.createdAt)! });
const webhookOut = (e: WebhookEndpoint) => {
  const p = publicEndpoint(e);
  return { id: p.id, url: p.url, description: p.description, eventTypes: p.eventTypes, active: p.active, createdAt: iso(p.createdAt)! };
};

// ---------------------------------------------------------------------------------------------------------
// Inputs

const ConversationCreate = z
  .object({
    inboxId: RowIdSchema,
    subject: z.string().trim().min(1).max(500),
    contact: z.object({ email: z.email().max(254).optional(), phone: z.string().max(20).optional(), name: z.string().max(200).optional() }).refine((c) => c.email || c.phone, {
      message: 'Give the contact an email or a phone number',
    }),
    message: z.string().trim().min(1).max(100_000),
    sourceType: z.enum(SOURCE_TYPES).default('helpdesk'),
  })
  .meta({ id: 'ConversationCreate' });

const ConversationUpdate = z
  .object({
    status: z.enum(['open', 'pending', 'resolved']).optional(),
    priority: z.enum(PRIORITIES).optional(),
    assigneeId: RowIdSchema.nullable().optional().meta({ description: 'A user of the account; null unassigns' }),
    teamId: RowIdSchema.nullable().optional().meta({ description: 'A team of the account; null clears' }),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Change at least one of status, priority, assigneeId, teamId' })
  .meta({ id: 'ConversationUpdate' });

const MessageCreate = z
  .object({ kind: z.enum(['reply', 'note']).meta({ description: 'reply goes out through the inbox\'s channel; note stays private' }), text: z.string().trim().min(1).max(100_000) })
  .meta({ id: 'MessageCreate' });

const ContactCreate = z
  .object({
    firstName: z.string().trim().min(1).max(100),
    lastName: z.string().trim().max(100).optional(),
    email: z.email().max(254).optional(),
    phone: z.string().max(20).optional(),
    title: z.string().max(100).optional(),
    companyName: z.string().max(200).optional(),
  })
  .meta({ id: 'ContactCreate' });

const CompanyCreate = z
  .object({ name: z.string().trim().min(1).max(200), domain: z.string().max(253).optional(), url: z.url().max(2000).optional(), phone: z.string().max(20).optional() })
  .meta({ id: 'CompanyCreate' });

const TagCreate = z.object({ name: z.string().trim().min(1).max(50), color: z.enum(TAG_COLOURS).default('blue') }).meta({ id: 'TagCreate' });

const WebhookCreate = z
  .object({ url: z.url().max(2000), description: z.string().max(200).optional(), eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1) })
  .meta({ id: 'WebhookCreate' });

// ---------------------------------------------------------------------------------------------------------
// Reads shared by several endpoints (account in every WHERE, cursor = last id)

/** One page, newest first: `fetch` reads `take` rows with ids below `before` (the decoded cursor). */
async function pageBy<T extends { id: number }>(query: { limit: number; cursor?: string }, fetch: (before: number | undefined, take: number) => Promise<T[]>) {
  return page(await fetch(decodeCursor(query.cursor), query.limit + 1), query.limit);
}

const db = () => getDb();

/** The delivery, when it belongs to that webhook of the account. */
function listDeliveryOwner(accountId: number, endpointId: number, deliveryId: number) {
  const d = schema.webhookDeliveries;
  return db()
    .select({ id: d.id })
    .from(d)
    .where(and(eq(d.accountId, accountId), eq(d.endpointId, endpointId), eq(d.id, deliveryId)));
}

async function conversationRow(accountId: number, id: number) {
  const found = await getConversation({ accountId, id });
  if (!found) throw notFound('Conversation');
  return found.conversation;
}

// ---------------------------------------------------------------------------------------------------------
// Endpoints

export const ENDPOINTS = {
  listConversations: defineEndpoint({
    id: 'listConversations',
    method: 'get',
    path: '/conversations',
    summary: 'List conversations, newest first',
    tag: 'Conversations',
    scope: 'conversations:read',
    query: PageQuery.extend({ status: z.enum(['open', 'pending', 'snoozed', 'resolved']).optional() }),
    status: 200,
    response: listOf(Conversation, 'ConversationList'),
    run: async (ctx, { query }) => {
      const c = schema.conversations;
      const p = await pageBy(query, (before, take) =>
        db()
          .select()
          .from(c)
          .where(and(eq(c.accountId, ctx.accountId), isNull(c.deletedAt), query.status ? eq(c.status, query.status) : undefined, before ? lt(c.id, before) : undefined))
          .orderBy(desc(c.id))
          .limit(take),
      );
      return { data: p.data.map(conversationOut), nextCursor: p.nextCursor };
    },
  }),
  createConversation: defineEndpoint({
    id: 'createConversation',
    method: 'post',
    path: '/conversations',
    summary: 'Open a conversation with its first (incoming) message',
    tag: 'Conversations',
    scope: 'conversations:write',
    body: ConversationCreate,
    idempotent: true,
    status: 201,
    response: Conversation,
    run: async (ctx, { body }) => {
      const { conversation } = await openConversation({
        accountId: ctx.accountId,
        inboxId: body.inboxId,
        sourceType: body.sourceType,
        subject: body.subject,
        contact: { email: body.contact.email ?? null, phone: body.contact.phone ?? null, name: body.contact.name ?? null },
        message: { kind: 'incoming', text: body.message },
      });
      return conversationOut(conversation);
    },
  }),
  getConversation: defineEndpoint({
    id: 'getConversation',
    method: 'get',
    path: '/conversations/{id}',
    summary: 'Read a conversation',
    tag: 'Conversations',
    scope: 'conversations:read',
    params: IdParams,
    status: 200,
    response: Conversation,
    run: async (ctx, { params }) => conversationOut(await conversationRow(ctx.accountId, params.id)),
  }),
  updateConversation: defineEndpoint({
    id: 'updateConversation',
    method: 'patch',
    path: '/conversations/{id}',
    summary: 'Change the status, priority, assignee or team (one transaction, the same events as the inbox)',
    tag: 'Conversations',
    scope: 'conversations:write',
    params: IdParams,
    body: ConversationUpdate,
    status: 200,
    response: Conversation,
    run: async (ctx, { params, body }) => {
      await conversationRow(ctx.accountId, params.id);
      const who = { accountId: ctx.accountId, actorId: ctx.actorId, ids: [params.id] };
      await getDb().transaction(async (tx) => {
        if (body.status) await setConversationStatus({ ...who, status: body.status, tx });
        if (body.priority) await setConversationPriority({ ...who, priority: body.priority, tx });
        if (body.assigneeId !== undefined || body.teamId !== undefined) await assignConversations({ ...who, assigneeId: body.assigneeId, teamId: body.teamId, tx });
      });
      return conversationOut(await conversationRow(ctx.accountId, params.id));
    },
  }),
  listMessages: defineEndpoint({
    id: 'listMessages',
    method: 'get',
    path: '/conversations/{id}/messages',
    summary: "List a conversation's messages and notes, newest first",
    tag: 'Conversations',
    scope: 'conversations:read',
    params: IdParams,
    query: PageQuery,
    status: 200,
    response: listOf(Message, 'MessageList'),
    run: async (ctx, { params, query }) => {
      await conversationRow(ctx.accountId, params.id);
      const m = schema.messages;
      const p = await pageBy(query, (before, take) =>
        db()
          .select()
          .from(m)
          .where(and(eq(m.accountId, ctx.accountId), eq(m.conversationId, params.id), isNull(m.deletedAt), before ? lt(m.id, before) : undefined))
          .orderBy(desc(m.id))
          .limit(take),
      );
      return { data: p.data.map(messageOut), nextCursor: p.nextCursor };
    },
  }),
  createMessage: defineEndpoint({
    id: 'createMessage',
    method: 'post',
    path: '/conversations/{id}/messages',
    summary: 'Send a reply (through the inbox\'s channel) or add a private note',
    tag: 'Conversations',
    scope: 'conversations:write',
    params: IdParams,
    body: MessageCreate,
    idempotent: true,
    status: 201,
    response: Message,
    run: async (ctx, { params, body }) => {
      await conversationRow(ctx.accountId, params.id);
      const message = await postMessage({ accountId: ctx.accountId, actorId: ctx.actorId, conversationId: params.id, kind: body.kind === 'reply' ? 'outgoing' : 'note', text: body.text });
      return messageOut(message);
    },
  }),
  listContacts: defineEndpoint({
    id: 'listContacts',
    method: 'get',
    path: '/contacts',
    summary: 'List contacts, newest first',
    tag: 'Contacts',
    scope: 'contacts:read',
    query: PageQuery.extend({ email: z.string().max(254).optional() }),
    status: 200,
    response: listOf(Contact, 'ContactList'),
    run: async (ctx, { query }) => {
      const c = schema.contacts;
      const p = await pageBy(query, (before, take) =>
        db()
          .select()
          .from(c)
          .where(and(eq(c.accountId, ctx.accountId), query.email ? eq(c.email, query.email.trim().toLowerCase()) : undefined, before ? lt(c.id, before) : undefined))
          .orderBy(desc(c.id))
          .limit(take),
      );
      return { data: p.data.map(contactOut), nextCursor: p.nextCursor };
    },
  }),
  createContact: defineEndpoint({
    id: 'createContact',
    method: 'post',
    path: '/contacts',
    summary: 'Create a contact',
    tag: 'Contacts',
    scope: 'contacts:write',
    body: ContactCreate,
    idempotent: true,
    status: 201,
    response: Contact,
    run: async (ctx, { body }) => contactOut(await createContact({ accountId: ctx.accountId, actorId: ctx.actorId, input: body, source: 'api' })),
  }),
  getContact: defineEndpoint({
    id: 'getContact',
    method: 'get',
    path: '/contacts/{id}',
    summary: 'Read a contact',
    tag: 'Contacts',
    scope: 'contacts:read',
    params: IdParams,
    status: 200,
    response: Contact,
    run: async (ctx, { params }) => {
      const c = schema.contacts;
      const [found] = await db()
        .select()
        .from(c)
        .where(and(eq(c.accountId, ctx.accountId), eq(c.id, params.id)));
      if (!found) throw notFound('Contact');
      return contactOut(found);
    },
  }),
  listCompanies: defineEndpoint({
    id: 'listCompanies',
    method: 'get',
    path: '/companies',
    summary: 'List companies, newest first',
    tag: 'Companies',
    scope: 'companies:read',
    query: PageQuery,
    status: 200,
    response: listOf(Company, 'CompanyList'),
    run: async (ctx, { query }) => {
      const c = schema.companies;
      const p = await pageBy(query, (before, take) =>
        db()
          .select()
          .from(c)
          .where(and(eq(c.accountId, ctx.accountId), before ? lt(c.id, before) : undefined))
          .orderBy(desc(c.id))
          .limit(take),
      );
      return { data: p.data.map(companyOut), nextCursor: p.nextCursor };
    },
  }),
  createCompany: defineEndpoint({
    id: 'createCompany',
    method: 'post',
    path: '/companies',
    summary: 'Create a company',
    tag: 'Companies',
    scope: 'companies:write',
    body: CompanyCreate,
    idempotent: true,
    status: 201,
    response: Company,
    run: async (ctx, { body }) => companyOut(await createCompany({ accountId: ctx.accountId, actorId: ctx.actorId, input: body })),
  }),
  getCompany: defineEndpoint({
    id: 'getCompany',
    method: 'get',
    path: '/companies/{id}',
    summary: 'Read a company',
    tag: 'Companies',
    scope: 'companies:read',
    params: IdParams,
    status: 200,
    response: Company,
    run: async (ctx, { params }) => {
      const c = schema.companies;
      const [found] = await db()
        .select()
        .from(c)
        .where(and(eq(c.accountId, ctx.accountId), eq(c.id, params.id)));
      if (!found) throw notFound('Company');
      return companyOut(found);
    },
  }),
  listTags: defineEndpoint({
    id: 'listTags',
    method: 'get',
    path: '/tags',
    summary: 'List tags',
    tag: 'Tags',
    scope: 'tags:read',
    query: PageQuery,
    status: 200,
    response: listOf(Tag, 'TagList'),
    run: async (ctx, { query }) => {
      const t = schema.tags;
      const p = await pageBy(query, (before, take) =>
        db()
          .select({ id: t.id, name: t.name, color: t.color })
          .from(t)
          .where(and(eq(t.accountId, ctx.accountId), before ? lt(t.id, before) : undefined))
          .orderBy(desc(t.id))
          .limit(take),
      );
      return p;
    },
  }),
  createTag: defineEndpoint({
    id: 'createTag',
    method: 'post',
    path: '/tags',
    summary: 'Create a tag',
    tag: 'Tags',
    scope: 'tags:write',
    body: TagCreate,
    idempotent: true,
    status: 201,
    response: Tag,
    run: async (ctx, { body }) => {
      const tag = await createTag({ accountId: ctx.accountId, actorId: ctx.actorId, name: body.name, color: body.color });
      return { id: tag.id, name: tag.name, color: tag.color };
    },
  }),
  listInboxes: defineEndpoint({
    id: 'listInboxes',
    method: 'get',
    path: '/inboxes',
    summary: 'List inboxes',
    tag: 'Inboxes',
    scope: 'inboxes:read',
    query: PageQuery,
    status: 200,
    response: listOf(Inbox, 'InboxList'),
    run: async (ctx, { query }) => {
      const t = schema.inboxes;
      return pageBy(query, (before, take) =>
        db()
          .select({ id: t.id, name: t.name, channelType: t.channelType })
          .from(t)
          .where(and(eq(t.accountId, ctx.accountId), before ? lt(t.id, before) : undefined))
          .orderBy(desc(t.id))
          .limit(take),
      );
    },
  }),
  listUsers: defineEndpoint({
    id: 'listUsers',
    method: 'get',
    path: '/users',
    summary: 'List users',
    tag: 'Users',
    scope: 'users:read',
    query: PageQuery,
    status: 200,
    response: listOf(User, 'UserList'),
    run: async (ctx, { query }) => {
      const t = schema.users;
      return pageBy(query, (before, take) =>
        db()
          .select({ id: t.id, firstName: t.firstName, lastName: t.lastName, email: t.email, status: t.status })
          .from(t)
          .where(and(eq(t.accountId, ctx.accountId), before ? lt(t.id, before) : undefined))
          .orderBy(desc(t.id))
          .limit(take),
      );
    },
  }),
  listWorkflows: defineEndpoint({
    id: 'listWorkflows',
    method: 'get',
    path: '/workflows',
    summary: 'List workflows',
    tag: 'Workflows',
    scope: 'workflows:read',
    query: PageQuery,
    status: 200,
    response: listOf(Workflow, 'WorkflowList'),
    run: async (ctx, { query }) => {
      const t = schema.automationRules;
      const p = await pageBy(query, (before, take) =>
        db()
          .select({ id: t.id, name: t.name, isActive: t.isActive, createdAt: t.createdAt })
          .from(t)
          .where(and(eq(t.accountId, ctx.accountId), eq(t.kind, 'workflow'), before ? lt(t.id, before) : undefined))
          .orderBy(desc(t.id))
          .limit(take),
      );
      return { data: p.data.map((r) => ({ ...r, createdAt: iso(r.createdAt)! })), nextCursor: p.nextCursor };
    },
  }),
  listWebhooks: defineEndpoint({
    id: 'listWebhooks',
    method: 'get',
    path: '/webhooks',
    summary: 'List webhook subscriptions',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    query: PageQuery,
    status: 200,
    response: listOf(Webhook, 'WebhookList'),
    run: async (ctx, { query }) => {
      const p = page(await listWebhooks({ accountId: ctx.accountId, afterId: decodeCursor(query.cursor), limit: query.limit + 1 }), query.limit);
      return { data: p.data.map(webhookOut), nextCursor: p.nextCursor };
    },
  }),
  createWebhook: defineEndpoint({
    id: 'createWebhook',
    method: 'post',
    path: '/webhooks',
    summary: 'Subscribe a URL to event types (the answer holds the signing secret, once)',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    body: WebhookCreate,
    idempotent: true,
    status: 201,
    response: WebhookCreated,
    run: async (ctx, { body }) => {
      const row = await createWebhook({ accountId: ctx.accountId, actorId: ctx.actorId, input: body });
      return { ...webhookOut(row), secret: row.secret };
    },
  }),
  getWebhook: defineEndpoint({
    id: 'getWebhook',
    method: 'get',
    path: '/webhooks/{id}',
    summary: 'Read a webhook subscription',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    params: IdParams,
    status: 200,
    response: Webhook,
    run: async (ctx, { params }) => {
      const row = await getWebhook({ accountId: ctx.accountId, id: params.id });
      if (!row) throw notFound('Webhook');
      return webhookOut(row);
    },
  }),
  listWebhookDeliveries: defineEndpoint({
    id: 'listWebhookDeliveries',
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    summary: "A webhook's last deliveries (up to 100), newest first, each with its attempts",
    tag: 'Webhooks',
    scope: 'webhooks:read',
    params: IdParams,
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(25) }),
    status: 200,
    response: z.object({ data: z.array(WebhookDelivery) }).meta({ id: 'WebhookDeliveryList' }),
    run: async (ctx, { params, query }) => {
      if (!(await getWebhook({ accountId: ctx.accountId, id: params.id }))) throw notFound('Webhook');
      const rows = await listDeliveries({ accountId: ctx.accountId, endpointId: params.id, limit: query.limit });
      return {
        data: rows.map((d) => ({
          id: d.id,
          messageId: d.messageId,
          eventType: d.eventType,
          status: d.status as 'pending' | 'delivered' | 'failed' | 'dead',
          nextAttemptAt: iso(d.nextAttemptAt),
          payload: d.payload,
          attempts: d.attempts.map((a) => ({
            id: a.id,
            trigger: a.trigger as 'automatic' | 'manual',
            responseStatus: a.responseStatus,
            responseBody: a.responseBody,
            error: a.error,
            durationMs: a.durationMs,
            createdAt: iso(a.createdAt)!,
          })),
          createdAt: iso(d.createdAt)!,
        })),
      };
    },
  }),
  redeliverWebhookDelivery: defineEndpoint({
    id: 'redeliverWebhookDelivery',
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    summary: 'Send a delivery again now (same webhook-id)',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: DeliveryParams,
    status: 202,
    response: z.object({ queued: z.literal(true) }).meta({ id: 'Queued' }),
    run: async (ctx, { params }) => {
      const [d] = await listDeliveryOwner(ctx.accountId, params.id, params.deliveryId);
      if (!d || !(await redeliverWebhook({ accountId: ctx.accountId, deliveryId: params.deliveryId }))) throw notFound('Delivery');
      return { queued: true as const };
    },
  }),
  deleteWebhook: defineEndpoint({
    id: 'deleteWebhook',
    method: 'delete',
    path: '/webhooks/{id}',
    summary: 'Delete a webhook subscription',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: IdParams,
    status: 204,
    response: z.null(),
    run: async (ctx, { params }) => {
      if (!(await deleteWebhook({ accountId: ctx.accountId, actorId: ctx.actorId, id: params.id }))) throw notFound('Webhook');
      return null;
    },
  }),
} satisfies Record<string, Endpoint>;

export const ALL_ENDPOINTS: Endpoint[] = Object.values(ENDPOINTS);
