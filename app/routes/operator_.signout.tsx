import type { ActionFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { signOutOperator } from '~/utils/operator-session.server';
import { requireBareHost } from '~/utils/tenant.server';

export async function action({ request }: ActionFunctionArgs) {
  await requireBareHost(request);
  return redirect('/operator/signin', { headers: { 'Set-Cookie': await signOutOperator(request) } });
}

export function loader() {
  return redirect('/operator');
}
