import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, type startTestApp } from './http';

/**
 * An account for the integrations' tests: its owner's session (the default of `get`/`post`) and an agent's (the
 * default agent role has no view_incoming_data, perform_data_specific_action or manage_integrations).
 */
export async function integrationAccount(app: Awaited<ReturnType<typeof startTestApp>>) {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie: string | undefined = owner) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie: string | undefined = owner) => app.request(path, { domain: a.domain, cookie, form });
  return { ...a, agentCookie, get, post };
}
