import type { LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { requireUser } from '~/utils/session.server';

/** Section 2: the Forms index redirects to all. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return redirect('/forms/all');
}
