import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { TRUSTED_DOMAIN_NAME_MAX, TRUSTED_DOMAIN_URL_MAX } from '~/models/email/form-constants';
import { TrustedDomainSchema } from '~/models/email/schemas';
import {
  createTrustedDomain,
  deleteTrustedDomain,
  getTrustedDomain,
  TrustedDomainInputError,
  updateTrustedDomain,
} from '~/models/email/trusted-domains.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/trusted-domain';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const domain = id === 'new' ? null : await getTrustedDomain({ accountId: ctx.account.id, id });
  if (domain === undefined) throw new Response('Not Found', { status: 404 });
  return {
    domain: domain ? { id: domain.id, domainName: domain.domainName, domainUrl: domain.domainUrl } : null,
    locked: !can(ctx, 'manage_trusted_domains'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_trusted_domains');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteTrustedDomain({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Trusted Domain Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: TrustedDomainSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    if (id === 'new') {
      await createTrustedDomain({ ...who, ...submission.value });
      return redirectWithToast(LIST, 'Trusted Domain Created');
    }
    if (!(await updateTrustedDomain({ ...who, id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Trusted Domain Updated' });
  } catch (err) {
    if (err instanceof TrustedDomainInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { domain: { domainName: string } | null } | undefined) => (loaderData ? (loaderData.domain?.domainName ?? 'Add Trusted Domain') : null),
};

export default function TrustedDomainPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <TrustedDomainEditor key={loaderData.domain?.id ?? 'new'} {...loaderData} />;
}

function TrustedDomainEditor({ domain, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `trusted-domain-${domain?.id ?? 'new'}`,
    lastResult,
    defaultValue: domain ? { domainName: domain.domainName, domainUrl: domain.domainUrl } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={domain ? 'Edit Trusted Domain' : 'Add Trusted Domain'}
      subHeader="Mail whose sender is at this domain, or one of its subdomains, is marked as trusted."
      learnMore="/help-center"
      locked={locked}
      actions={domain ? <DeleteConfirm id={`trusted-domain-${domain.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Domain Name" field={fields.domainName} autoComplete="off" hint={`At most ${TRUSTED_DOMAIN_NAME_MAX} characters`} />
          <Field label="Domain URL" field={fields.domainUrl} autoComplete="off" maxLength={TRUSTED_DOMAIN_URL_MAX} hint="subdomain.domain.topleveldomain" />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={domain ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.domain?.domainName ?? 'Add Trusted Domain', 'Trusted Domain', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
