import crypto from 'node:crypto';
import os from 'node:os';
import { singleton } from '../../utils/singleton.server';

/**
 * This process's name in the cluster: what it writes into leases, presence rows and the nodes table, so that what a
 * process holds can be told apart from what another holds, and taken over when it stops renewing. `PARLEY_NODE_NAME`
 * names it (the cluster script and the compose file set `web-1`, `engine-2`...); otherwise the host and pid. A random
 * suffix keeps a restarted process (same name, same pid in a container) apart from the one before it.
 */
export function nodeId(): string {
  return singleton('node-id', () => {
    const name = (process.env.PARLEY_NODE_NAME ?? '').trim() || `${os.hostname()}:${process.pid}`;
    return `${name.slice(0, 80)}#${crypto.randomBytes(3).toString('hex')}`;
  });
}

/** The readable part of a node id (without its random suffix), for pages and logs. */
export function nodeName(id: string = nodeId()) {
  return id.replace(/#[0-9a-f]{6}$/, '');
}
