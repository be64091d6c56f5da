import { isAccountSuspended } from '../accounts/suspension.server';
import { EMAIL_CHANNEL_FEATURE, planAllows } from '../plans/enforce.server';
import type { ImapFlow } from 'imapflow';
import type { EmailInboxSettings } from '../../../db/schema/inbox';
import { getInbox, type Inbox } from '../inbox/inboxes.server';
import { readEmailSettings, saveImapProgress } from './email-inboxes.server';
import { ingestEmail, type IngestResult } from './inbound.server';

export type ImapSettings = NonNullable<EmailInboxSettings['imap']>;
/** Connection options are built in one place: mail-connection.server.ts. */
export { imapClient } from './mail-connection.server';

/** How many messages are read from the server at once (their sources sit in memory until ingested). */
const BATCH = 20;

/** A fingerprint of what a connection depends on: the manager reconnects when it changes. */
export function imapConnectionKey(imap: ImapSettings | undefined) {
  return imap ? JSON.stringify([imap.host, imap.port, imap.secure, imap.tls ?? '', imap.user, imap.password, imap.mailbox, imap.pin?.fingerprint ?? '', imap.auth ?? '', imap.grantId ?? '']) : '';
}

/**
 * Reads the mail that arrived in the inbox's mailbox since the last time (UIDs above the stored lastUid) and
 * ingests it, recording progress after each message. A mailbox seen for the first time, or whose
 * UIDVALIDITY changed, starts at its end: Parley takes the mail that arrives from then on.
 * The client must have the mailbox selected and its lock held.
 */
export async function syncImapMailbox(client: ImapFlow, opts: { accountId: number; inboxId: number }) {
  const inbox = await getInbox({ accountId: opts.accountId, id: opts.inboxId });
  const imap = inbox ? readEmailSettings(inbox).imap : undefined;
  if (!inbox || !imap || readEmailSettings(inbox).mode !== 'imap') return { ingested: [] as IngestResult[], gone: true };
  // Suspended (ADR 152): the mail stays on the IMAP server, unread by Parley, until the account is resumed.
  if (await isAccountSuspended(inbox.accountId)) return { ingested: [] as IngestResult[], gone: false };
  // A plan without the Inbox (ADR 157): the same, the mail waits on the server for a plan with it.
  if (!(await planAllows({ accountId: inbox.accountId, key: EMAIL_CHANNEL_FEATURE }))) return { ingested: [] as IngestResult[], gone: false };
  const mailbox = client.mailbox;
  if (!mailbox) throw new Error('No mailbox is selected');
  const uidValidity = String(mailbox.uidValidity);
  let lastUid = imap.lastUid;
  if (lastUid === undefined || (imap.uidValidity !== undefined && imap.uidValidity !== uidValidity)) {
    lastUid = Math.max(0, Number(mailbox.uidNext ?? 1) - 1);
    await saveImapProgress({ accountId: inbox.accountId, id: inbox.id, lastUid, uidValidity });
    return { ingested: [] as IngestResult[], gone: false };
  }
  if (imap.uidValidity === undefined) await saveImapProgress({ accountId: inbox.accountId, id: inbox.id, lastUid, uidValidity });

  const found = await client.search({ uid: `${lastUid + 1}:*` }, { uid: true });
  // `n:*` always names the highest message, even when it is older than n.
  const uids = (found || []).filter((u) => u > lastUid!).sort((a, b) => a - b);
  const ingested: IngestResult[] = [];
  for (let i = 0; i < uids.length; i += BATCH) {
    const batch = uids.slice(i, i + BATCH);
    const sources = new Map<number, Buffer>();
    for await (const msg of client.fetch(batch.join(','), { uid: true, source: true }, { uid: true })) {
      if (msg.source) sources.set(msg.uid, msg.source);
    }
    for (const uid of batch) {
      const raw = sources.get(uid);
      if (raw) ingested.push(await ingestEmail({ inbox: inbox as Inbox, raw, via: 'imap' }));
      await saveImapProgress({ accountId: inbox.accountId, id: inbox.id, lastUid: uid, uidValidity });
    }
  }
  return { ingested, gone: false };
}
