import pino from 'pino';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, type startTestApp } from './http';
import { startHubspotStandIn } from './hubspot-standin';
import { startPipedriveStandIn } from './pipedrive-standin';
import { startBigcommerceStandIn } from './bigcommerce-standin';
import { startShopifyStandIn } from './shopify-standin';

type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/**
 * An account for the integrations' tests: its owner's session (the default of `get`/`post`) and an agent's (the
 * default agent role has no view_incoming_data, perform_data_specific_action or manage_integrations).
 */
export async function integrationSession(app: TestApp) {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie: string | undefined = owner) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie: string | undefined = owner) => app.request(path, { domain: a.domain, cookie, form });
  return { ...a, agent, agentCookie, get, post };
}

/** `integrationSession` with an email inbox and one conversation of the given contact. */
export async function integrationAccount(app: TestApp, o: { subject: string; contact: { name: string; email?: string | ((domain: string) => string) }; message: string }) {
  const a = await integrationSession(app);
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const email = typeof o.contact.email === 'function' ? o.contact.email(a.domain) : (o.contact.email ?? `${o.contact.name.split(' ')[0].toLowerCase()}@${a.domain}.test`);
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: o.subject,
    contact: { email, name: o.contact.name },
    message: { kind: 'incoming', text: o.message },
  });
  return { ...a, inbox, conversation, email };
}
export type IntegrationAccount = Awaited<ReturnType<typeof integrationAccount>>;

/** Connects a provider through its stand-in's OAuth consent (which redirects straight back with a code). */
export async function connectThroughOAuth(s: IntegrationAccount, provider: string) {
  const start = await s.post(`/settings/integrations/${provider}`, { intent: 'connect' });
  if (start.status !== 302) throw new Error(`connect answered ${start.status}`);
  const consent = await fetch(start.headers.location!, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location')!);
  return { start, done: await s.get(`${back.pathname}${back.search}`) };
}

/** Sets the providers' variables for a test file and re-reads the configuration; the answer undoes it. */
export function useEnv(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetSingleton('config');
  return () => {
    for (const k of Object.keys(vars)) delete process.env[k];
    resetSingleton('config');
  };
}

/** HubSpot and Pipedrive stand-ins with the server's variables pointing at them (the CRM tests' set-up). */
export async function startCrmStandIns(o: { hubspot?: { expiresIn?: number; appId?: string; developerApiKey?: string } } = {}) {
  const hs = await startHubspotStandIn({ clientId: 'hs-client', clientSecret: 'hs-secret', ...o.hubspot });
  const pd = await startPipedriveStandIn({ clientId: 'pd-client', clientSecret: 'pd-secret' });
  const restore = useEnv({
    HUBSPOT_CLIENT_ID: 'hs-client',
    HUBSPOT_CLIENT_SECRET: 'hs-secret',
    HUBSPOT_OAUTH_BASE: hs.base,
    HUBSPOT_API_BASE: hs.base,
    ...(o.hubspot?.appId && o.hubspot.developerApiKey ? { HUBSPOT_APP_ID: o.hubspot.appId, HUBSPOT_DEVELOPER_API_KEY: o.hubspot.developerApiKey } : {}),
    PIPEDRIVE_CLIENT_ID: 'pd-client',
    PIPEDRIVE_CLIENT_SECRET: 'pd-secret',
    PIPEDRIVE_OAUTH_BASE: pd.base,
    PIPEDRIVE_API_BASE: pd.base,
  });
  return {
    hs,
    pd,
    async close() {
      await hs.close();
      await pd.close();
      restore();
    },
  };
}

/** Shopify and BigCommerce stand-ins with the server's variables pointing at them (the commerce tests' set-up). */
export async function startCommerceStandIns(o: { clientId: string; clientSecret: string; shop: string }) {
  const bc = await startBigcommerceStandIn();
  const shopify = await startShopifyStandIn(o);
  const restore = useEnv({ BIGCOMMERCE_API_BASE: bc.base, SHOPIFY_CLIENT_ID: o.clientId, SHOPIFY_CLIENT_SECRET: o.clientSecret, SHOPIFY_API_BASE: shopify.base });
  return {
    bc,
    shopify,
    async close() {
      await bc.close();
      await shopify.close();
      restore();
    },
  };
}

/** Every log line at debug level from now on, to check that no token or secret is ever written; the answer restores the logger. */
export function captureLogs() {
  const lines: string[] = [];
  const store = (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons!;
  const previous = store.get('logger');
  store.set('logger', pino({ level: 'debug', base: undefined }, { write: (line: string) => void lines.push(line) }));
  return {
    lines,
    restore() {
      if (previous) store.set('logger', previous);
      else store.delete('logger');
    },
  };
}
