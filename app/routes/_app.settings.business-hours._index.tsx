import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { readPage } from '~/components/ui/pager';
import { SettingsList } from '~/components/ui/settings-list';
import { listBusinessHours } from '~/models/automation/business-hours.server';
import { WEEK_DAYS } from '~/models/automation/business-hours-constants';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may see the business hours; manage_business_hours changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const list = await listBusinessHours({ accountId: ctx.account.id, page: readPage(new URL(request.url)) });
  return {
    user: publicUser(ctx),
    list: {
      ...list,
      rows: list.rows.map((r) => ({
        id: r.id,
        name: r.name,
        timezone: r.timezone,
        days: r.allDay ? '24x7' : [...new Set(r.timings.map((t) => t.day))].sort().map((d) => WEEK_DAYS[d].slice(0, 3)).join(', '),
        holidays: r.haveHolidays ? r.holidays.length : 0,
        createdAt: r.createdAt,
      })),
    },
    locked: !can(ctx, 'manage_business_hours'),
  };
}

export default function BusinessHoursList() {
  const { user, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsList
      basePath="/settings/business-hours"
      title="Business Hours"
      subHeader="The hours your team works: SLA targets of an inbox with business hours count only open time."
      createLabel="Create Business Hours"
      plural="business hours"
      testId="business-hours"
      locked={locked}
      list={list}
      columns={[
        { header: 'Name', cell: (r) => r.name },
        { header: 'Timezone', cell: (r) => r.timezone },
        { header: 'Days', cell: (r) => r.days },
        { header: 'Holidays', cell: (r) => r.holidays },
        { header: 'Created', cell: (r) => formatDate(r.createdAt, user) },
      ]}
    />
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Business Hours', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
