import net from 'node:net';

/**
 * For the crash-window children (bulk-send-crash-window.test.ts): with CRASH_AFTER_END=n the process SIGKILLs itself as
 * soon as the code that wrote the n-th message end ("<CRLF>.<CRLF>") returns to the event loop (its next tick): the
 * worst moment for a mark that is written after the end instead of in the same turn.
 */
export function crashAfterEnd() {
  const crashAfter = Number(process.env.CRASH_AFTER_END ?? 0);
  if (!crashAfter) return;
  let ends = 0;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
    const result = (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('latin1') : '';
    if (text.length <= 5 && text.endsWith('.\r\n') && ++ends === crashAfter) process.nextTick(() => process.kill(process.pid, 'SIGKILL'));
    return result;
  } as typeof net.Socket.prototype.write;
}
