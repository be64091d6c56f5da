import { redirect, type LoaderFunctionArgs } from '@remix-run/node';
import { requireFeature } from '~/utils/session.server';

/** Analytics opens on its overview (specification, section 2). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'analytics/enabled');
  return redirect('/analytics/overview');
}
