import postgres from 'postgres';

type Listener = { fn: (payload: string) => void; onlisten?: () => void };

/**
 * LISTEN that survives the database going away (ADR 143). postgres.js re-listens once when its listening connection
 * closes, and if that one attempt fails (the database is still down, a failover is under way) the channel is dropped
 * for good: the process would never hear a NOTIFY again. Here the channels are kept and LISTENed again every second
 * until the database answers; each listener's `onlisten` then runs again, so that its owner catches up with what it
 * may have missed meanwhile (the engine fetches every queue, the live server tells pages to reload). Same contract as
 * postgres.js's `sql.listen(channel, fn, onlisten)`.
 */
export function createListener(url: string, options: postgres.Options<Record<string, postgres.PostgresType>>) {
  const channels = new Map<string, Listener[]>();
  let ended = false;
  let retrying = false;
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const sql = postgres(url, {
    ...options,
    max: 1,
    // Back within a second of the database (db/client.ts reconnectBackoff), not postgres.js's up to 20 s.
    backoff: (retries: number) => Math.min(0.1 * 2 ** retries, 1),
    idle_timeout: undefined,
    max_lifetime: null,
    fetch_types: false,
    onnotify: (channel: string, payload: string) => {
      for (const l of channels.get(channel) ?? []) l.fn(payload);
    },
    onclose: () => {
      if (!ended && channels.size) relisten();
    },
  } as postgres.Options<Record<string, postgres.PostgresType>>);

  const listenAll = async (names: string[]) => {
    for (const name of names) await sql.unsafe(`listen ${quote(name)}`);
  };

  function relisten() {
    if (retrying) return;
    retrying = true;
    const attempt = async () => {
      if (ended) return;
      try {
        await listenAll([...channels.keys()]);
        retrying = false;
        for (const listeners of channels.values())
          for (const l of listeners) {
            try {
              l.onlisten?.();
            } catch {
              /* a listener's catch-up must not stop the others' */
            }
          }
      } catch {
        setTimeout(() => void attempt(), 1_000).unref();
      }
    };
    setTimeout(() => void attempt(), 200).unref();
  }

  async function listen(name: string, fn: (payload: string) => void, onlisten?: () => void) {
    const listener: Listener = { fn, onlisten };
    const existing = channels.get(name);
    if (existing) existing.push(listener);
    else {
      channels.set(name, [listener]);
      try {
        await listenAll([name]);
      } catch (err) {
        channels.delete(name);
        throw err;
      }
    }
    onlisten?.();
    return {
      state: undefined,
      async unlisten() {
        const list = (channels.get(name) ?? []).filter((l) => l !== listener);
        if (list.length) return void channels.set(name, list);
        channels.delete(name);
        await sql.unsafe(`unlisten ${quote(name)}`).catch(() => {});
      },
    };
  }

  return {
    listen,
    async end() {
      ended = true;
      await sql.end({ timeout: 2 });
    },
  };
}
