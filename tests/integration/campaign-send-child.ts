/**
 * A campaign send in its own process, for the crash-window test (campaigns-crash-window.test.ts), which SIGKILLs it.
 * Usage: node --import tsx tests/integration/campaign-send-child.ts <accountId> <campaignId>
 * (DATABASE_URL and SMTP_URL from the environment). With CRASH_AFTER_END=n the process SIGKILLs itself as soon as the
 * code that wrote the n-th message end ("<CRLF>.<CRLF>") returns to the event loop (its next tick): the worst moment
 * for a mark that is written after the end instead of in the same turn.
 */
import net from 'node:net';
import { runCampaignSend } from '../../app/models/campaigns/sending.server';

const crashAfter = Number(process.env.CRASH_AFTER_END ?? 0);
if (crashAfter) {
  let ends = 0;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
    const result = (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('latin1') : '';
    if (text.length <= 5 && text.endsWith('.\r\n') && ++ends === crashAfter) process.nextTick(() => process.kill(process.pid, 'SIGKILL'));
    return result;
  } as typeof net.Socket.prototype.write;
}

const [accountId, campaignId] = process.argv.slice(2).map(Number);
await runCampaignSend({ accountId: accountId!, campaignId: campaignId! });
process.exit(0);
