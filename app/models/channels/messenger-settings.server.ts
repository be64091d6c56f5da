import crypto from 'node:crypto';
import { parseWithZod } from '@conform-to/zod/v4';
import type { SubmissionResult } from '@conform-to/react';
import type { z } from 'zod';
import { and, count, eq, inArray } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { getBusinessHours } from '../automation/business-hours.server';
import { createInbox, deleteInbox, getInbox, listInboxes, updateInbox, type Inbox } from '../inbox/inboxes.server';
import { getKnowledgeBase } from '../knowledge-base/knowledge-bases.server';
import { MESSENGER_DEFAULTS, readMessengerSettings, type MessengerSection, type MessengerSettings } from './messenger-settings';

/**
 * Settings → Channels → Chat Messenger / Chat Pages and Settings → Messenger: web inboxes and the sections of
 * their `settings`. Every function is scoped by the account; changes go through updateInbox (`inbox_updated`).
 */

/** A choice (business hours, a knowledge base) that is not the account's: a field error, never saved. */
export class InvalidChoiceError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export async function listWebInboxes(opts: { accountId: number }) {
  return listInboxes({ accountId: opts.accountId, channelType: 'web' });
}

/** The messenger inboxes with how many conversations each holds (the delete confirmation names them). */
export async function listWebInboxesWithCounts(opts: { accountId: number }) {
  const inboxes = await listWebInboxes(opts);
  if (!inboxes.length) return [];
  const c = schema.conversations;
  const counts = await getDb()
    .select({ inboxId: c.inboxId, n: count() })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), inArray(c.inboxId, inboxes.map((i) => i.id))))
    .groupBy(c.inboxId);
  const byInbox = new Map(counts.map((r) => [r.inboxId, r.n]));
  return inboxes.map((i) => ({ ...i, conversationCount: byInbox.get(i.id) ?? 0 }));
}

/** Renames a messenger inbox; undefined when it is not one of the account's web inboxes. A taken name throws InboxNameTakenError. */
export async function renameWebInbox(opts: { accountId: number; actorId: number; id: number; name: string }) {
  const inbox = await getWebInbox(opts);
  if (!inbox) return undefined;
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { name: opts.name } });
}

/**
 * Deletes a messenger inbox with its conversations, as every other inbox type deletes (email, SMS): the confirmation
 * names how many go with it. undefined when it is not one of the account's web inboxes.
 */
export async function deleteWebInbox(opts: { accountId: number; actorId: number; id: number }) {
  const inbox = await getWebInbox(opts);
  if (!inbox) return undefined;
  return deleteInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id });
}

/** The web inbox a Messenger page edits: the one asked for (?inbox=), else the first; undefined when none exist. */
export async function pickWebInbox(opts: { accountId: number; requested?: string | null }) {
  const inboxes = await listWebInboxes(opts);
  const id = Number(opts.requested);
  const inbox = inboxes.find((i) => i.id === id) ?? inboxes[0];
  return { inboxes: inboxes.map((i) => ({ id: i.id, name: i.name })), inbox, settings: inbox ? readMessengerSettings(inbox.settings) : null };
}

function newChatPageCode() {
  return crypto.randomBytes(9).toString('base64url');
}

/** A messenger (web) inbox with the default settings, its identity secret and a chat-page code. */
export async function createWebInbox(opts: { accountId: number; actorId: number; name: string }) {
  const settings: MessengerSettings = { ...MESSENGER_DEFAULTS, chatPage: { ...MESSENGER_DEFAULTS.chatPage, code: newChatPageCode() } };
  return createInbox({ accountId: opts.accountId, actorId: opts.actorId, name: opts.name, channelType: 'web', settings });
}

export async function getWebInbox(opts: { accountId: number; id: number }): Promise<Inbox | undefined> {
  const inbox = await getInbox(opts);
  return inbox?.channelType === 'web' ? inbox : undefined;
}

/**
 * Saves one section of a web inbox's Messenger settings. The offline section's business hours are the inbox's
 * own (the column SLA counting reads too), checked to be the account's.
 */
export async function saveMessengerSection<S extends MessengerSection>(opts: {
  accountId: number;
  actorId: number;
  inboxId: number;
  section: S;
  value: MessengerSettings[S];
}) {
  const inbox = await getWebInbox({ accountId: opts.accountId, id: opts.inboxId });
  if (!inbox) return undefined;
  const current = readMessengerSettings(inbox.settings);
  let value: Record<string, unknown> = { ...opts.value };
  const changes: Parameters<typeof updateInbox>[0]['changes'] = {};
  if (opts.section === 'offline') {
    const { businessHoursId, ...rest } = value as { businessHoursId?: number };
    if (businessHoursId && !(await getBusinessHours({ accountId: opts.accountId, id: businessHoursId })))
      throw new InvalidChoiceError('businessHoursId', 'Choose business hours of this account');
    changes.businessHoursId = businessHoursId ?? null;
    value = rest;
  }
  if (opts.section === 'configure') {
    const { helpCentreId } = value as { helpCentreId?: number };
    if (helpCentreId && !(await getKnowledgeBase({ accountId: opts.accountId, id: helpCentreId })))
      throw new InvalidChoiceError('helpCentreId', 'Choose a knowledge base of this account');
  }
  if (opts.section === 'chatPage') value.code = current.chatPage.code ?? newChatPageCode();
  changes.settings = { ...(inbox.settings ?? {}), ...current, [opts.section]: value };
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes });
}

export type SectionSubmission = { status: 'invalid'; reply: SubmissionResult<string[]> } | { status: 'missing' } | { status: 'saved'; inboxId: number };

/**
 * A Messenger settings page's post: its section parsed with the section's schema and saved to the web inbox the
 * form names (of the account). Bad input — including business hours that are not the account's — comes back as
 * the reply for a 400.
 */
export async function submitMessengerSection<S extends MessengerSection>(opts: {
  accountId: number;
  actorId: number;
  formData: FormData;
  section: S;
  schema: z.ZodType;
}): Promise<SectionSubmission> {
  const submission = parseWithZod(opts.formData, { schema: opts.schema });
  if (submission.status !== 'success') return { status: 'invalid', reply: submission.reply() };
  try {
    const saved = await saveMessengerSection({
      accountId: opts.accountId,
      actorId: opts.actorId,
      inboxId: Number(opts.formData.get('inboxId')),
      section: opts.section,
      value: submission.value as MessengerSettings[S],
    });
    return saved ? { status: 'saved', inboxId: saved.id } : { status: 'missing' };
  } catch (err) {
    if (err instanceof InvalidChoiceError) return { status: 'invalid', reply: submission.reply({ fieldErrors: { [err.field]: [err.message] } }) };
    throw err;
  }
}

/** A fresh identity-verification secret: hashes made with the old one stop matching at once. */
export async function rotateIdentitySecret(opts: { accountId: number; actorId: number; inboxId: number }) {
  const inbox = await getWebInbox({ accountId: opts.accountId, id: opts.inboxId });
  if (!inbox) return undefined;
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(schema.inboxes)
      .set({ secret: crypto.randomBytes(24).toString('base64url'), updatedAt: new Date() })
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, inbox.id)))
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'inbox_updated',
      subjectType: 'inbox',
      subjectId: inbox.id,
      payload: { changed: ['secret'] },
      actor: { type: 'user', id: opts.actorId },
    });
    return row;
  });
}
