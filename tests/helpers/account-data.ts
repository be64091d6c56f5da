import crypto from 'node:crypto';
import { getDb, schema } from '../../db/client';
import { writeStoredFile } from '../../app/models/storage/files.server';

/**
 * One of each kind of row an account export carries and an erasure touches, inserted directly (the export reads
 * tables, not screens): a contact with a conversation of two messages (one with a stored attachment), a note, a
 * company, a tag, a knowledge base with a category, an article and an image, a survey with a response, a form with an
 * entry that uploaded a file, a team, an SLA policy and a workflow. Returns the ids and the stored files' bytes.
 */
export async function seedAccountData(accountId: number, userId: number, opts: { label?: string } = {}) {
  const db = getDb();
  // Installation-wide unique values (a survey's public id, a form's code) differ even when two accounts share a label.
  const uniq = crypto.randomBytes(4).toString('hex');
  const label = opts.label ?? crypto.randomBytes(3).toString('hex');
  const [inbox] = await db.insert(schema.inboxes).values({ accountId, name: `Support ${label}`, channelType: 'email', email: `support-${label}@example.test`, secret: 'inbox-secret-value', settings: { apiToken: 'tok-secret', greeting: 'Hi' } }).returning();
  const [company] = await db.insert(schema.companies).values({ accountId, name: `Acme ${label}` }).returning();
  const [contact] = await db.insert(schema.contacts).values({ accountId, email: `jane-${label}@example.test`, firstName: 'Jane', lastName: `Doe ${label}`, companyId: company.id }).returning();
  const [other] = await db.insert(schema.contacts).values({ accountId, email: `sam-${label}@example.test`, firstName: 'Sam', lastName: 'Other' }).returning();
  const [tag] = await db.insert(schema.tags).values({ accountId, name: `vip-${label}` }).returning();
  await db.insert(schema.contactTags).values({ accountId, contactId: contact.id, tagId: tag.id });
  await db.insert(schema.crmNotes).values({ accountId, contactId: contact.id, userId, body: `Jane's secret note ${label}` });

  const [conversation] = await db
    .insert(schema.conversations)
    .values({ accountId, inboxId: inbox.id, contactId: contact.id, subject: `Jane's broken order ${label}`, sourceType: 'email', lastMessagePreview: `My card number is 4111 ${label}`, messageCount: 2 })
    .returning();
  const [incoming] = await db
    .insert(schema.messages)
    .values({ accountId, conversationId: conversation.id, kind: 'incoming', senderContactId: contact.id, text: `My card number is 4111 ${label}`, email: { from: contact.email!, to: [inbox.email!] } })
    .returning();
  const [reply] = await db
    .insert(schema.messages)
    .values({ accountId, conversationId: conversation.id, kind: 'outgoing', senderUserId: userId, text: `We are on it ${label}`, email: { to: [contact.email!] } })
    .returning();
  const attachmentBytes = crypto.randomBytes(2048);
  const { storageKey: attachmentKey } = await writeStoredFile(accountId, attachmentBytes);
  await db.insert(schema.attachments).values({ accountId, messageId: incoming.id, filename: 'receipt.pdf', contentType: 'application/pdf', size: attachmentBytes.length, storageKey: attachmentKey });
  await db.insert(schema.conversationTags).values({ accountId, conversationId: conversation.id, tagId: tag.id });
  // The other contact's conversation: an erasure of Jane leaves it alone.
  const [otherConversation] = await db.insert(schema.conversations).values({ accountId, inboxId: inbox.id, contactId: other.id, subject: `Sam asks ${label}`, sourceType: 'email' }).returning();
  await db.insert(schema.messages).values({ accountId, conversationId: otherConversation.id, kind: 'incoming', senderContactId: other.id, text: `Sam's question ${label}` });
  await db.insert(schema.domainEvents).values({ accountId, type: 'contact_created', subjectType: 'contact', subjectId: String(contact.id), payload: { contactId: contact.id, email: contact.email }, actorType: 'user', actorId: userId, ip: '203.0.113.9' });
  await db.insert(schema.domainEvents).values({ accountId, type: 'message_created', subjectType: 'message', subjectId: String(incoming.id), payload: { conversationId: conversation.id, text: incoming.text }, actorType: 'contact', actorId: contact.id });

  const [kb] = await db.insert(schema.knowledgeBases).values({ accountId, name: `Help ${label}`, slug: `help-${label}` }).returning();
  const [category] = await db.insert(schema.kbCategories).values({ accountId, knowledgeBaseId: kb.id, name: 'Orders', slug: `orders-${label}` }).returning();
  await db.insert(schema.kbArticles).values({ accountId, knowledgeBaseId: kb.id, categoryId: category.id, title: 'Refunds', slug: `refunds-${label}`, bodyHtml: '<p>How refunds work</p>', bodyText: 'How refunds work' });
  const imageBytes = crypto.randomBytes(1024);
  const { storageKey: imageKey } = await writeStoredFile(accountId, imageBytes);
  await db.insert(schema.kbImages).values({ accountId, knowledgeBaseId: kb.id, token: crypto.randomBytes(8).toString('hex'), storageKey: imageKey, filename: 'diagram.png', contentType: 'image/png', size: imageBytes.length });

  const [folder] = await db.insert(schema.surveyFolders).values({ accountId, name: `Folder ${label}` }).returning();
  const surveyShape = { channel: 'web' as const, subType: 'nps' as never, design: {} as never, messages: {} as never, target: {} as never };
  const [survey] = await db.insert(schema.surveys).values({ accountId, uniqueId: `s${label}${uniq}`, name: `NPS ${label}`, folderId: folder.id, ...surveyShape }).returning();
  const [version] = await db.insert(schema.surveyVersions).values({ accountId, surveyId: survey.id, version: 1, name: survey.name, ...surveyShape, questions: [], settings: {} as never }).returning();
  await db.insert(schema.surveyResponses).values({ accountId, surveyId: survey.id, surveyVersionId: version.id, channel: 'web', responseKey: `r${label}`, respondentKey: `p${label}`, contactId: contact.id, answers: { q1: 'Jane hated it' } });

  const uploadBytes = crypto.randomBytes(512);
  const { storageKey: uploadKey } = await writeStoredFile(accountId, uploadBytes);
  const [form] = await db.insert(schema.forms).values({ accountId, name: `Contact us ${label}`, code: `f${label}${uniq}` }).returning();
  await db.insert(schema.formResponses).values({ accountId, formId: form.id, contactId: contact.id, email: contact.email, answers: { message: 'Call me', upload: { filename: 'id.jpg', contentType: 'image/jpeg', size: uploadBytes.length, storageKey: uploadKey } } as never });

  const [team] = await db.insert(schema.teams).values({ accountId, name: `Team ${label}` }).returning();
  await db.insert(schema.teamMembers).values({ teamId: team.id, userId });
  await db.insert(schema.slaPolicies).values({ accountId, name: `SLA ${label}`, targets: {} as never });
  await db.insert(schema.automationRules).values({ accountId, kind: 'workflow', name: `Flow ${label}`, event: 'conversation_created' });

  const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  return {
    inbox,
    contact,
    other,
    conversation,
    otherConversation,
    incoming,
    reply,
    files: [
      { key: attachmentKey, sha256: sha(attachmentBytes) },
      { key: imageKey, sha256: sha(imageBytes) },
      { key: uploadKey, sha256: sha(uploadBytes) },
    ],
    attachmentKey,
    uploadKey,
  };
}
