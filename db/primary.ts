import postgres from 'postgres';

/**
 * The hosts of a DATABASE_URL, which may name several (`postgres://u:p@db1:5432,db2:5432/parley?target_session_attrs=read-write`,
 * as libpq and postgres.js read it). `new URL` cannot parse that form, so it is taken apart by hand.
 */
export function databaseHosts(url: string): { hosts: { host: string; port: number }[]; rebuild: (host: { host: string; port: number }) => string } {
  const m = /^(postgres(?:ql)?:\/\/)(?:([^@/]*)@)?([^/?]*)(.*)$/.exec(url);
  if (!m) throw new Error('DATABASE_URL is not a postgres:// URL');
  const [, scheme, auth, hostList, rest] = m;
  const hosts = hostList.split(',').map((h) => {
    const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(h);
    if (bracket) return { host: bracket[1], port: Number(bracket[2] ?? 5432) };
    const [host, port] = h.split(':');
    return { host: host || 'localhost', port: Number(port || 5432) };
  });
  return {
    hosts,
    rebuild: ({ host, port }) => `${scheme}${auth !== undefined ? `${auth}@` : ''}${host.includes(':') ? `[${host}]` : host}:${port}${rest}`,
  };
}

/**
 * A single-host URL of the current primary, for the few clients that cannot follow several hosts themselves (the `pg`
 * driver). With one host, the URL as it is. Each host is asked in turn whether it is in recovery; the first that is
 * not answers. Throws when none does (no primary: the caller retries as it would after any connection failure).
 */
export async function primaryUrl(url: string, opts: { timeoutSeconds?: number } = {}): Promise<string> {
  const { hosts, rebuild } = databaseHosts(url);
  if (hosts.length === 1) return url;
  const reasons: string[] = [];
  for (const host of hosts) {
    const single = rebuild(host).replace(/([?&])target_session_attrs=[^&]*&?/, '$1').replace(/[?&]$/, '');
    const sql = postgres(single, { max: 1, onnotice: () => {}, connect_timeout: opts.timeoutSeconds ?? 3 });
    try {
      const [row] = await sql<{ recovery: boolean }[]>`select pg_is_in_recovery() as recovery`;
      if (!row.recovery) return single;
      reasons.push(`${host.host}:${host.port} is a standby`);
    } catch (err) {
      reasons.push(`${host.host}:${host.port}: ${(err as Error).message}`);
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
  }
  throw new Error(`no primary among the database hosts (${reasons.join('; ')})`);
}
