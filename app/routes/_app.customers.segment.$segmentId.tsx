import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { ContactTable } from '~/components/crm/contact-table';
import { useCrmTagOptions } from '~/components/crm/use-crm-tag-options';
import { SegmentHeader } from '~/components/crm/segment-header';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { listContacts } from '~/models/crm/contacts.server';
import { handleListAction, readContactFilters } from '~/models/crm/contacts-screen.server';
import { deleteSegment, getSegment } from '~/models/crm/segments.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** A contact segment: the contact list filtered in SQL by the segment (plan feature customerList). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/customerList');
  const id = parseRouteId(params.segmentId);
  const segment = id ? await getSegment({ accountId: ctx.account.id, id, kind: 'contact' }) : undefined;
  if (!segment) throw new Response('Not Found', { status: 404 });
  const filters = readContactFilters(new URL(request.url));
  const list = await listContacts({ accountId: ctx.account.id, filters: { ...filters, segmentId: segment.id } });
  return {
    segment: { id: segment.id, name: segment.name, isStatic: segment.isStatic },
    filters: { q: filters.q, tag: filters.tag },
    list,
    locked: !can(ctx, 'manage_contacts'),
    canExport: can(ctx, 'export_contacts'),
    user: publicUser(ctx),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  await requireFeature(request, 'customerManagement/customerList', ctx);
  const id = parseRouteId(params.segmentId);
  const segment = id ? await getSegment({ accountId: ctx.account.id, id, kind: 'contact' }) : undefined;
  if (!segment) throw new Response('Not Found', { status: 404 });
  const form = await request.formData();
  if (form.get('intent') === 'delete-segment') {
    if (!(await deleteSegment({ accountId: ctx.account.id, actorId: ctx.user.id, id: segment.id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/customers', { type: 'info', text: 'Deleted' });
  }
  const result = await handleListAction(request, ctx, form, 'contact');
  if (result) return result;
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = {
  breadcrumb: (loaderData: { segment: { name: string } } | undefined) => loaderData?.segment.name ?? null,
};

export default function ContactSegment() {
  const { segment, filters, list, locked, canExport, user } = useLoaderData<typeof loader>();
  const tagOptions = useCrmTagOptions();
  const actionData = useActionData<typeof action>();
  const path = `/customers/segment/${segment.id}`;
  return (
    <section className="stack">
      <SegmentHeader segment={segment} total={list.total} locked={locked} />
      {canExport ? (
        <p>
          <a href={`/customers/export?segment=${segment.id}`} className="btn" download>
            Export segment
          </a>
        </p>
      ) : null}
      <ContactTable action={path} filters={filters} tagOptions={tagOptions} list={list} locked={locked} prefs={user} formError={actionData?.formError} />
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.segment.name ?? 'Segment', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
