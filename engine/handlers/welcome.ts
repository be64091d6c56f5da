import { createNotification } from '../../app/models/notifications/notifications.server';
import type { EventHandler } from './types';

/** account_created: greets the owner in their notifications with the first steps. */
export const welcomeOwner: EventHandler = {
  name: 'welcome-owner',
  on: ['account_created'],
  async handle(event) {
    const ownerId = Number(event.payload.ownerId);
    const n = await createNotification({
      accountId: event.accountId,
      userId: ownerId,
      title: 'Welcome to Parley',
      body: 'Invite your team, create teams and roles, then connect your first channel.',
      link: '/getting-started',
      eventId: event.id,
    });
    return { notificationId: n.id };
  },
};
