import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { SettingsPage } from '~/components/ui/settings-page';
import { listConnections } from '~/models/integrations/connections.server';
import { PROVIDER_IDS, PROVIDERS } from '~/models/integrations/providers';
import { integrationAvailability } from '~/models/integrations/availability.server';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const connections = await listConnections({ accountId: ctx.account.id });
  const available = integrationAvailability();
  return {
    user: publicUser(ctx),
    providers: PROVIDER_IDS.map((id) => {
      const conn = connections.find((c) => c.provider === id);
      return { id, label: PROVIDERS[id].label, blurb: PROVIDERS[id].blurb, built: PROVIDERS[id].built, configured: available[id], account: conn?.externalAccount ?? null, since: conn?.connectedAt ?? null };
    }),
  };
}

export default function IntegrationsIndex() {
  const { user, providers } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title="Integrations" subHeader="Connect your store, CRM and issue trackers; they show in the conversation and contact side panels." learnMore="/help-center">
      <table className="table" data-testid="integrations">
        <thead>
          <tr>
            <th>Integration</th>
            <th>What it does</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {providers.map((p) => (
            <tr key={p.id} data-testid={`integration-${p.id}`}>
              <td>
                <Link to={p.id}>{p.label}</Link>
              </td>
              <td>{p.blurb}</td>
              <td>
                {p.account ? (
                  <span className="pill">
                    Connected: {p.account}
                    {p.since ? ` · ${formatDate(p.since, user)}` : ''}
                  </span>
                ) : !p.built ? (
                  <span className="muted">Not available yet</span>
                ) : p.configured ? (
                  <span className="muted">Not connected</span>
                ) : (
                  <span className="muted">Not set up on this server</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Integrations', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
