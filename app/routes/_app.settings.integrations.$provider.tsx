import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { integrationAvailability } from '~/models/integrations/availability.server';
import { getConnectionSummary } from '~/models/integrations/connections.server';
import { disconnectGithub, githubSettings, saveGithubSettings, startGithubConnect } from '~/models/integrations/github/github.server';
import { isProviderId, PROVIDERS, type ProviderId } from '~/models/integrations/providers';
import { BigcommerceConnectSchema, GithubSettingsSchema, ShopifyConnectSchema } from '~/models/integrations/schemas';
import { normalizeShopDomain } from '~/models/integrations/shopify/client.server';
import { disconnectShopify, startShopifyConnect } from '~/models/integrations/shopify/shopify.server';
import { asanaProjectPicker, asanaSettings, disconnectAsana, saveAsanaSettings, startAsanaConnect } from '~/models/integrations/asana/asana.server';
import { clickupListPicker, clickupSettings, disconnectClickup, saveClickupSettings, startClickupConnect } from '~/models/integrations/clickup/clickup.server';
import { AsanaProjectPicker, ClickupListPicker } from '~/components/integrations/task-pickers';
import { IntegrationError } from '~/models/integrations/http.server';
import { AsanaSettingsSchema, ClickupSettingsSchema } from '~/models/integrations/task-schemas';
import { BigcommerceConnectError, connectBigcommerce, disconnectBigcommerce } from '~/models/integrations/bigcommerce/bigcommerce.server';
import { disconnectHubspot, startHubspotConnect } from '~/models/integrations/hubspot/hubspot.server';
import { disconnectPipedrive, startPipedriveConnect } from '~/models/integrations/pipedrive/pipedrive.server';
import { normalizeStoreHash } from '~/models/integrations/bigcommerce/client.server';
import { CrmSyncSchema } from '~/models/integrations/crm-sync-schemas';
import { crmSyncView, isCrmProvider, saveCrmSync } from '~/models/integrations/crm-sync-settings.server';
import { CrmSyncForm } from '~/components/integrations/crm-sync-form';
import { OrderImportCard } from '~/components/integrations/order-import-card';
import { latestOrderImport, OrderImportError, startOrderImport } from '~/models/integrations/order-import.server';
import { ensureShopifyWebhooks, type WebhookCheck } from '~/models/integrations/shopify/webhook-check.server';
import { OrderImportSchema } from '~/models/integrations/schemas';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import { accountUrl, bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

function readProvider(param: string | undefined): ProviderId {
  if (!isProviderId(param)) throw new Response('Not Found', { status: 404 });
  return param;
}

const pickQuery = (request: Request, key: string) => new URL(request.url).searchParams.get(key);

export const callbackPath = (provider: ProviderId) => `/settings/integrations/${provider}/callback`;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const provider = readProvider(params.provider);
  const conn = await getConnectionSummary({ accountId: ctx.account.id, provider });
  return {
    user: publicUser(ctx),
    provider,
    label: PROVIDERS[provider].label,
    blurb: PROVIDERS[provider].blurb,
    built: PROVIDERS[provider].built,
    configured: integrationAvailability()[provider],
    connection: conn ? { account: conn.externalAccount, since: conn.connectedAt } : null,
    github: provider === 'github' && conn ? (({ defaultRepo, reopenOnClose }) => ({ defaultRepo, reopenOnClose }))(githubSettings(conn.settings)) : null,
    asana: provider === 'asana' && conn ? (({ workspaces, defaultWorkspace, defaultProject, reopenOnClose }) => ({ workspaces, defaultWorkspace, defaultProject, reopenOnClose }))(asanaSettings(conn.settings)) : null,
    clickup: provider === 'clickup' && conn ? (({ teams, defaultList, reopenOnClose }) => ({ teams, defaultList, reopenOnClose }))(clickupSettings(conn.settings)) : null,
    crmSync: isCrmProvider(provider) && conn ? crmSyncView(provider, conn.settings, bareUrl(request, '').replace(/\/$/, '')) : null,
    // Stores (ADR 118): the latest import of past orders, and Shopify's last webhook check.
    orderImport: (provider === 'shopify' || provider === 'bigcommerce') && conn ? await latestOrderImport({ accountId: ctx.account.id, provider }) : null,
    webhookCheck: provider === 'shopify' && conn ? ((conn.settings.webhookCheck as WebhookCheck | undefined) ?? null) : null,
    // Pickers for the default project / list (ADR 118); "Show …" comes back as a GET with the form's fields.
    asanaPicker: provider === 'asana' && conn ? await asanaProjectPicker({ accountId: ctx.account.id, workspace: pickQuery(request, 'defaultWorkspace') }) : null,
    clickupPicker:
      provider === 'clickup' && conn ? await clickupListPicker({ accountId: ctx.account.id, team: pickQuery(request, 'defaultTeam'), space: pickQuery(request, 'defaultSpace') }) : null,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const provider = readProvider(params.provider);
  if (!PROVIDERS[provider].built || !integrationAvailability()[provider])
    throw new Response(`${PROVIDERS[provider].label} is not available on this server`, { status: 400 });
  const here = `/settings/integrations/${provider}`;
  const who = { accountId: ctx.account.id, userId: ctx.user.id };
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  const redirectUri = accountUrl(request, ctx.account.domain, callbackPath(provider));
  if (intent === 'connect' && provider === 'shopify') {
    const submission = parseWithZod(formData, { schema: ShopifyConnectSchema });
    if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
    const shop = normalizeShopDomain(submission.value.shop);
    if (!shop) return data(submission.reply({ fieldErrors: { shop: ['Enter your shop as my-store or my-store.myshopify.com'] } }), { status: 400 });
    return redirect(startShopifyConnect({ ...who, shop, redirectUri }));
  }
  if (intent === 'connect' && provider === 'github') return redirect(startGithubConnect({ ...who, redirectUri }));
  if (intent === 'connect' && provider === 'asana') return redirect(startAsanaConnect({ ...who, redirectUri }));
  if (intent === 'connect' && provider === 'clickup') return redirect(startClickupConnect({ ...who, redirectUri }));
  if (intent === 'connect' && provider === 'hubspot') return redirect(startHubspotConnect({ ...who, redirectUri }));
  if (intent === 'connect' && provider === 'pipedrive') return redirect(startPipedriveConnect({ ...who, redirectUri }));
  if (intent === 'connect' && provider === 'bigcommerce') {
    const submission = parseWithZod(formData, { schema: BigcommerceConnectSchema });
    if (submission.status !== 'success') return data(submission.reply({ hideFields: ['accessToken'] }), { status: 400 });
    const storeHash = normalizeStoreHash(submission.value.storeHash);
    if (!storeHash)
      return data(
        submission.reply({
          fieldErrors: { storeHash: ['Enter the store hash, e.g. abc123 from https://api.bigcommerce.com/stores/abc123/v3/'] },
          hideFields: ['accessToken'],
        }),
        { status: 400 },
      );
    try {
      const out = await connectBigcommerce({
        ...who,
        storeHash,
        accessToken: submission.value.accessToken,
        webhookBase: bareUrl(request, '').replace(/\/$/, ''),
      });
      return redirectWithToast(
        here,
        out.webhook
          ? 'BigCommerce Connected'
          : {
              type: 'info',
              text: 'BigCommerce connected; its order webhook could not be registered (BigCommerce needs a public HTTPS address), so new orders are not counted as sales.',
            },
      );
    } catch (err) {
      if (!(err instanceof BigcommerceConnectError)) throw err;
      return data(
        submission.reply(
          err.field ? { fieldErrors: { [err.field]: [err.message] }, hideFields: ['accessToken'] } : { formErrors: [err.message], hideFields: ['accessToken'] },
        ),
        { status: 400 },
      );
    }
  }
  if (intent === 'disconnect' && provider === 'bigcommerce') {
    const out = await disconnectBigcommerce(who);
    if (!out.disconnected) return redirectWithToast(here, { type: 'info', text: 'BigCommerce was not connected' });
    return redirectWithToast(here, {
      type: 'info',
      text: 'BigCommerce disconnected and its token deleted here; delete the store API account in BigCommerce (Settings → API accounts) to end the token there.',
    });
  }
  if (intent === 'disconnect') {
    const disconnect = { shopify: disconnectShopify, hubspot: disconnectHubspot, pipedrive: disconnectPipedrive, asana: disconnectAsana, clickup: disconnectClickup, github: disconnectGithub }[provider as string] ?? disconnectGithub;
    const out = await disconnect(who);
    if (!out.disconnected) return redirectWithToast(here, { type: 'info', text: `${PROVIDERS[provider].label} was not connected` });
    return redirectWithToast(
      here,
      out.revoked
        ? `${PROVIDERS[provider].label} Disconnected`
        : { type: 'info', text: `${PROVIDERS[provider].label} disconnected here; the provider could not be told, revoke Parley's access there too.` },
    );
  }
  if (intent === 'import-orders' && (provider === 'shopify' || provider === 'bigcommerce')) {
    const submission = parseWithZod(formData, { schema: OrderImportSchema });
    if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
    try {
      await startOrderImport({ ...who, provider, since: submission.value.since ? new Date(`${submission.value.since}T00:00:00Z`) : null });
    } catch (err) {
      if (err instanceof OrderImportError) return data(submission.reply({ formErrors: [err.message] }), { status: 400 });
      throw err;
    }
    return redirectWithToast(here, 'Import of Past Orders Queued');
  }
  if (intent === 'check-webhooks' && provider === 'shopify') {
    const out = await ensureShopifyWebhooks({ accountId: ctx.account.id });
    if (!out) return redirectWithToast(here, { type: 'info', text: 'Shopify is not connected' });
    if (out.error) return redirectWithToast(here, { type: 'error', text: `Shopify webhooks: ${out.error}` });
    return redirectWithToast(here, out.registered.length ? `Registered at Shopify: ${out.registered.join(', ')}` : 'Shopify Webhooks Are All Registered');
  }
  if (intent === 'settings' && provider === 'github') {
    const submission = parseWithZod(formData, { schema: GithubSettingsSchema });
    if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
    await saveGithubSettings({ accountId: ctx.account.id, defaultRepo: submission.value.defaultRepo, reopenOnClose: submission.value.reopenOnClose === 'on' });
    return redirectWithToast(here, 'Settings Saved');
  }
  if (intent === 'settings' && provider === 'asana') {
    const submission = parseWithZod(formData, { schema: AsanaSettingsSchema });
    if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
    try {
      const v = submission.value;
      await saveAsanaSettings({ accountId: ctx.account.id, defaultWorkspace: v.defaultWorkspace, defaultProject: v.defaultProjectId || v.defaultProject, reopenOnClose: v.reopenOnClose === 'on' });
    } catch (err) {
      if (err instanceof IntegrationError) return data(submission.reply({ formErrors: [err.message] }), { status: 400 });
      throw err;
    }
    return redirectWithToast(here, 'Settings Saved');
  }
  if (intent === 'settings' && provider === 'clickup') {
    const submission = parseWithZod(formData, { schema: ClickupSettingsSchema });
    if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
    const v = submission.value;
    await saveClickupSettings({ accountId: ctx.account.id, defaultTeam: v.defaultTeam, defaultSpace: v.defaultSpace, defaultList: v.defaultListId || v.defaultList, reopenOnClose: v.reopenOnClose === 'on' });
    return redirectWithToast(here, 'Settings Saved');
  }
  if (intent === 'sync' && isCrmProvider(provider)) {
    const submission = parseWithZod(formData, { schema: CrmSyncSchema });
    if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
    const out = await saveCrmSync({ accountId: ctx.account.id, provider, input: submission.value, publicBase: bareUrl(request, '').replace(/\/$/, '') });
    if (!out.ok) return data(submission.reply({ fieldErrors: out.fieldErrors, formErrors: out.formErrors }), { status: 400 });
    return redirectWithToast(here, out.message);
  }
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = { breadcrumb: (d: { label: string } | undefined) => d?.label ?? null };

export default function IntegrationPage() {
  const d = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: `integration-${d.provider}`, lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  const [settingsForm, settingsFields] = useForm({
    id: 'integration-settings',
    lastResult,
    shouldValidate: 'onSubmit',
    defaultValue: { defaultRepo: d.github?.defaultRepo ?? '', reopenOnClose: d.github?.reopenOnClose ? 'on' : undefined },
  });
  const tasks = d.asana ?? d.clickup;
  const project = d.asana?.defaultProject ?? '';
  const projectListed = Boolean(d.asanaPicker?.projects.some((p) => p.gid === project));
  const list = d.clickup?.defaultList ?? '';
  const listListed = Boolean(d.clickupPicker?.lists.some((l) => l.id === list));
  const pickDefaults = {
    defaultWorkspace: d.asanaPicker?.workspace ?? '',
    defaultProject: projectListed ? project : '',
    defaultProjectId: projectListed ? '' : project,
    defaultTeam: d.clickupPicker?.team ?? '',
    defaultSpace: d.clickupPicker?.space ?? '',
    defaultList: listListed ? list : '',
    defaultListId: listListed ? '' : list,
  };
  const [taskForm, taskFields] = useForm({
    id: `integration-task-settings-${Object.values(pickDefaults).join('-')}`,
    lastResult,
    shouldValidate: 'onSubmit',
    defaultValue: { ...pickDefaults, reopenOnClose: tasks?.reopenOnClose ? 'on' : undefined },
  });
  return (
    <SettingsPage title={d.label} subHeader={d.blurb} learnMore="/help-center">
      <p>
        <Link to="/settings/integrations">All integrations</Link>
      </p>
      {!d.built ? (
        <p className="muted" data-testid="not-available">
          {d.label} is not available yet in this version of Parley. Nothing here pretends to work.
        </p>
      ) : !d.configured && !d.connection ? (
        <p className="muted" data-testid="not-configured">
          {d.label} is not set up on this server: the administrator sets {d.provider.toUpperCase()}_CLIENT_ID and {d.provider.toUpperCase()}_CLIENT_SECRET (see
          the README).
        </p>
      ) : d.connection ? (
        <>
          <p data-testid="connection-status">
            Connected to <strong>{d.connection.account}</strong> since {formatDateTime(d.connection.since, d.user)}.
          </p>
          {d.github ? (
            <Form method="post" {...getFormProps(settingsForm)}>
              <Field label="Default repository" field={settingsFields.defaultRepo} hint="owner/name, offered when an agent creates an issue" />
              <CheckboxField label="Reopen the conversation when its issue closes (default for new links)" field={settingsFields.reopenOnClose} />
              <ErrorList errors={settingsForm.errors} />
              <button type="submit" className="btn" name="intent" value="settings">
                Save
              </button>
            </Form>
          ) : null}
          {tasks ? (
            <Form method="post" {...getFormProps(taskForm)}>
              <p className="muted">The default {d.asana ? 'project' : 'list'}, offered when an agent creates a task.</p>
              {d.asanaPicker ? (
                <AsanaProjectPicker picker={d.asanaPicker} fields={{ workspace: taskFields.defaultWorkspace, project: taskFields.defaultProject, projectId: taskFields.defaultProjectId }} />
              ) : null}
              {d.clickupPicker ? (
                <ClickupListPicker
                  picker={d.clickupPicker}
                  fields={{ team: taskFields.defaultTeam, space: taskFields.defaultSpace, list: taskFields.defaultList, listId: taskFields.defaultListId }}
                />
              ) : null}
              <CheckboxField label="Reopen the conversation when its task closes (default for new links)" field={taskFields.reopenOnClose} />
              <ErrorList errors={taskForm.errors} />
              <button type="submit" className="btn" name="intent" value="settings">
                Save
              </button>
            </Form>
          ) : null}
          {d.crmSync ? <CrmSyncForm label={d.label} sync={d.crmSync} lastResult={lastResult} /> : null}
          {d.provider === 'shopify' ? (
            <Form method="post" data-testid="webhook-check">
              <p className="muted">
                {d.webhookCheck
                  ? `Webhooks checked ${formatDateTime(d.webhookCheck.checkedAt, d.user)}: ${
                      d.webhookCheck.error ? `${d.webhookCheck.error}${d.webhookCheck.missing.length ? ` (missing: ${d.webhookCheck.missing.join(', ')})` : ''}` : 'app/uninstalled and orders/create are registered'
                    }${d.webhookCheck.registered.length ? ` (registered then: ${d.webhookCheck.registered.join(', ')})` : ''}.`
                  : 'Parley checks every hour that Shopify calls it on new orders and on uninstall, and registers what is missing.'}
              </p>
              <button type="submit" className="btn" name="intent" value="check-webhooks">
                Check webhooks now
              </button>
            </Form>
          ) : null}
          {d.provider === 'shopify' || d.provider === 'bigcommerce' ? <OrderImportCard label={d.label} latest={d.orderImport} lastResult={lastResult} prefs={d.user} /> : null}
          <Form method="post">
            <button type="submit" className="btn danger" name="intent" value="disconnect">
              Disconnect {d.label}
            </button>
          </Form>
        </>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          {d.provider === 'shopify' ? <Field label="Shop" field={fields.shop} hint="my-store or my-store.myshopify.com" /> : null}
          {d.provider === 'bigcommerce' ? (
            <>
              <p className="muted">
                Create a store API account in BigCommerce (Settings → API → Store-level API accounts) with read-only Customers and modify Orders, then paste its
                API path's store hash and its access token.
              </p>
              <Field label="Store hash" field={fields.storeHash} hint="abc123, from https://api.bigcommerce.com/stores/abc123/v3/" />
              <Field label="Access token" field={fields.accessToken} type="password" autoComplete="off" />
            </>
          ) : null}
          <ErrorList errors={form.errors} />
          <button type="submit" className="btn primary" name="intent" value="connect">
            Connect {d.label}
          </button>
        </Form>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.label, 'Integrations') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
