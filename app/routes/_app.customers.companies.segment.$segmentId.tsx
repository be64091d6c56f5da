import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { CompanyTable } from '~/components/crm/company-table';
import { useCrmTagOptions } from '~/components/crm/use-crm-tag-options';
import { SegmentHeader } from '~/components/crm/segment-header';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { listCompanies } from '~/models/crm/companies.server';
import { handleListAction, readCompanyFilters } from '~/models/crm/contacts-screen.server';
import { deleteSegment, getSegment } from '~/models/crm/segments.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** A company segment: the company list filtered in SQL by the segment (plan feature customerList). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/customerList');
  const id = parseRouteId(params.segmentId);
  const segment = id ? await getSegment({ accountId: ctx.account.id, id, kind: 'company' }) : undefined;
  if (!segment) throw new Response('Not Found', { status: 404 });
  const filters = readCompanyFilters(new URL(request.url));
  const list = await listCompanies({ accountId: ctx.account.id, filters: { ...filters, segmentId: segment.id } });
  return {
    segment: { id: segment.id, name: segment.name, isStatic: segment.isStatic },
    filters: { q: filters.q, tag: filters.tag },
    list,
    locked: !can(ctx, 'manage_contacts'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  await requireFeature(request, 'customerManagement/customerList', ctx);
  const id = parseRouteId(params.segmentId);
  const segment = id ? await getSegment({ accountId: ctx.account.id, id, kind: 'company' }) : undefined;
  if (!segment) throw new Response('Not Found', { status: 404 });
  const form = await request.formData();
  if (form.get('intent') === 'delete-segment') {
    if (!(await deleteSegment({ accountId: ctx.account.id, actorId: ctx.user.id, id: segment.id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/customers/companies', { type: 'info', text: 'Deleted' });
  }
  const result = await handleListAction(request, ctx, form, 'company');
  if (result) return result;
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = {
  breadcrumb: (loaderData: { segment: { name: string } } | undefined) => loaderData?.segment.name ?? null,
};

export default function CompanySegment() {
  const { segment, filters, list, locked } = useLoaderData<typeof loader>();
  const tagOptions = useCrmTagOptions();
  const actionData = useActionData<typeof action>();
  const path = `/customers/companies/segment/${segment.id}`;
  return (
    <section className="stack">
      <SegmentHeader segment={segment} total={list.total} locked={locked} />
      <CompanyTable action={path} filters={filters} tagOptions={tagOptions} list={list} locked={locked} formError={actionData?.formError} />
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.segment.name ?? 'Segment', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
