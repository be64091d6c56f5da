import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { findSettingsItem } from '~/models/shell/navigation';
import { pageTitle } from '~/utils/format';
import { requireFeature, requireUser } from '~/utils/session.server';

/** Settings pages of later areas: an honest coming-soon page, still behind the plan gate they will have. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const slug = (params['*'] ?? '').split('/')[0];
  const item = findSettingsItem(slug);
  if (!item || item.built) throw new Response('Not Found', { status: 404 });
  if (item.feature) await requireFeature(request, item.feature, ctx);
  return { label: item.label };
}

export const handle = { breadcrumb: (data: { label: string } | undefined) => data?.label ?? null };

export default function SettingsComingSoon() {
  const { label } = useLoaderData<typeof loader>();
  return <ComingSoon area={label} description="This settings page arrives with the area it configures." />;
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.label, 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
