import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { listNotifications, markNotificationsRead } from '~/models/notifications/notifications.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const rows = await listNotifications({ accountId: ctx.account.id, userId: ctx.user.id, limit: 100 });
  return { user: publicUser(ctx), notifications: rows };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const form = await request.formData();
  const intent = form.get('intent');
  if (intent === 'mark-one') {
    const id = parseRouteId(String(form.get('id') ?? ''));
    if (id === null) throw new Response('Choose a notification', { status: 400 });
    // Another user's notification (or one already read) changes nothing: the WHERE holds the user and account.
    await markNotificationsRead({ accountId: ctx.account.id, userId: ctx.user.id, id });
    return redirectWithToast('/notifications', { type: 'info', text: 'Notification marked as read' });
  }
  if (intent !== 'mark-read') throw new Response('Unknown intent', { status: 400 });
  await markNotificationsRead({ accountId: ctx.account.id, userId: ctx.user.id });
  return redirectWithToast('/notifications', { type: 'info', text: 'Notifications marked as read' });
}

export const handle = { breadcrumb: 'Notifications' };

export default function Notifications() {
  const { user, notifications } = useLoaderData<typeof loader>();
  return (
    <div className="page stack">
      <div className="row">
        <h1>Notifications</h1>
        <div className="spacer" />
        <Form method="post">
          <button className="btn" name="intent" value="mark-read">
            Mark all as read
          </button>
        </Form>
      </div>
      {notifications.length === 0 ? <p className="muted">No notifications.</p> : null}
      <ul className="card" data-testid="notifications">
        {notifications.map((n) => (
          <li key={n.id} data-read={Boolean(n.readAt)}>
            <strong>{n.readAt ? n.title : `● ${n.title}`}</strong> <span className="muted">{formatDateTime(n.createdAt, user)}</span>
            {n.body ? <p>{n.body}</p> : null}
            {n.link ? <Link to={n.link}>Open</Link> : null}
            {n.readAt ? null : (
              <Form method="post" className="inline-form">
                <input type="hidden" name="id" value={n.id} />
                <button className="btn btn-small" name="intent" value="mark-one" aria-label={`Mark as read: ${n.title}`}>
                  Mark as read
                </button>
              </Form>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Notifications') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
