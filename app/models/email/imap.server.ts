import { ImapFlow } from 'imapflow';
import type { EmailInboxSettings } from '../../../db/schema/inbox';
import { assertAllowedLiteral, guardedLookup } from '../../utils/outbound-guard.server';
import { getInbox, type Inbox } from '../inbox/inboxes.server';
import { readEmailSettings, saveImapProgress } from './email-inboxes.server';
import { ingestEmail, type IngestResult } from './inbound.server';

export type ImapSettings = NonNullable<EmailInboxSettings['imap']>;

/** How many messages are read from the server at once (their sources sit in memory until ingested). */
const BATCH = 20;

/** A client for an inbox's mailbox. Nothing it logs contains the password (imapflow's own logger is off). */
export function imapClient(imap: ImapSettings) {
  return new GuardedImapFlow({
    host: imap.host,
    port: imap.port,
    secure: imap.secure,
    auth: { user: imap.user, pass: imap.password },
    logger: false,
    // IDLE (how new mail is noticed at once) starts this soon after the last command...
    autoIdleDelay: 500,
    // ...and is renewed well before servers drop it (29 minutes at the latest, RFC 2177).
    maxIdleTime: 5 * 60_000,
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 10 * 60_000,
    // The outbound guard (ADR 021) resolves the host on the socket itself: imapflow passes `tls` to
    // net.connect and tls.connect alike.
    tls: { lookup: guardedLookup as never },
  });
}

/** An address typed as the host never reaches `lookup`: it is judged before connecting. */
class GuardedImapFlow extends ImapFlow {
  private readonly guardedHost: string;
  constructor(options: ConstructorParameters<typeof ImapFlow>[0] & { host: string }) {
    super(options);
    this.guardedHost = options.host;
  }
  override async connect() {
    assertAllowedLiteral(this.guardedHost);
    return super.connect();
  }
}

/** A fingerprint of what a connection depends on: the manager reconnects when it changes. */
export function imapConnectionKey(imap: ImapSettings | undefined) {
  return imap ? JSON.stringify([imap.host, imap.port, imap.secure, imap.user, imap.password, imap.mailbox]) : '';
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
