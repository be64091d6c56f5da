import net from 'node:net';
import tls from 'node:tls';

/**
 * A TCP proxy on loopback in front of a real server. `freeze()` makes the connections open at that moment go
 * silent without closing (what a frozen server or a NAT box that dropped its entry looks like: no FIN, no RST,
 * nothing); connections opened afterwards work. With `tls` it terminates TLS with that key and certificate, to
 * put a self-signed certificate in front of a plain test server.
 */
export async function startTcpProxy(opts: { targetPort: number; tls?: { key: string; cert: string } }) {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();
  const onConnection = (client: net.Socket) => {
    const upstream = net.connect({ host: '127.0.0.1', port: opts.targetPort });
    const pair = { client, upstream, frozen: false };
    pairs.add(pair);
    client.on('data', (d) => {
      if (!pair.frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!pair.frozen) client.write(d);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => !pair.frozen && end()).on('error', () => !pair.frozen && end());
  };
  const server = opts.tls ? tls.createServer({ key: opts.tls.key, cert: opts.tls.cert }, onConnection) : net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** How many connections are open through the proxy right now (frozen ones included). */
    open: () => pairs.size,
    freeze: () => {
      for (const p of pairs) p.frozen = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
