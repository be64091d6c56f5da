import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { endSession, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const cookie = await endSession(request, ctx.account.id);
  return redirect('/', { headers: { 'Set-Cookie': cookie } });
}

/** The logout confirmation as a page, so that it works without JavaScript. */
export default function Logout() {
  return (
    <>
      <h1>Logout</h1>
      <p>Are you sure you want to logout?</p>
      <Form method="post" className="dialog-actions">
        <Link to="/home" className="btn">
          Cancel
        </Link>
        <button type="submit" className="btn btn-primary">
          Yes
        </button>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Logout') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
