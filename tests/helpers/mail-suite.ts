import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { getDb, schema } from '../../db/client';
import { openConversation, setConversationStatus } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId } from './engine';
import { sessionCookie, startTestApp } from './http';
import { startSmtpSink } from './smtp-sink';

/**
 * The setup the outbound-mail tests share (CSAT, review requests, email surveys): a local SMTP sink and the built app
 * for the whole file, the sink's mailbox emptied after each test. Read `suite.received` / `suite.app` inside tests.
 */
export function useMailSuite() {
  const suite = {} as { sink: Awaited<ReturnType<typeof startSmtpSink>>; received: Awaited<ReturnType<typeof startSmtpSink>>['received']; app: Awaited<ReturnType<typeof startTestApp>> };
  beforeAll(async () => {
    suite.sink = await startSmtpSink();
    suite.received = suite.sink.received;
    suite.app = await startTestApp();
  });
  afterEach(() => {
    suite.received.length = 0;
  });
  afterAll(async () => {
    await suite.app.close();
    await suite.sink.stop();
  });
  return suite;
}

/** An account with a verified email inbox ("Support mail", support@<domain>.example.test) and the owner's cookie. */
export async function mailAccount() {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const mail = await createInbox({ ...who, name: 'Support mail', channelType: 'email' });
  const sender = `support@${a.domain}.example.test`;
  await getDb().update(schema.inboxes).set({ email: sender, forwardingVerifiedAt: new Date() }).where(eq(schema.inboxes.id, mail.id));
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  return { ...a, who, mail, sender, cookie };
}

type MailAccount = Awaited<ReturnType<typeof mailAccount>>;

/** A conversation from Cleo <email> in an inbox (email by default; `chat` for a web inbox). */
export async function customerConversation(s: MailAccount, opts: { email: string; inboxId?: number; chat?: boolean }) {
  const opened = await getDb().transaction((tx) =>
    openConversation({
      tx,
      accountId: s.account.id,
      inboxId: opts.inboxId ?? s.mail.id,
      sourceType: opts.chat ? 'web_chat' : 'email',
      subject: 'Order late',
      contact: { email: opts.email, firstName: 'Cleo' },
      message: { kind: 'incoming', text: 'Where is it?' },
    } as never),
  );
  return opened.conversation.id;
}

/** Resolves a conversation and runs the engine on what that wrote (the CSAT and review-request handlers). */
export async function resolveAndDrain(s: MailAccount, id: number) {
  const after = await lastEventId(s.account.id);
  await setConversationStatus({ ...s.who, ids: [id], status: 'resolved' });
  await drainEvents(s.account.id, { after });
}
