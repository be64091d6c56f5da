import { sendInvitationEmail } from '../../app/models/users/invitations.server';
import type { EventHandler } from './types';

/** user_invited: mails the invitee a link to set their password. */
export const inviteUser: EventHandler = {
  name: 'invitation-email',
  on: ['user_invited'],
  async handle(event) {
    const result = await sendInvitationEmail({
      accountId: event.accountId,
      userId: Number(event.subjectId),
      baseUrl: String(event.payload.baseUrl),
    });
    return result;
  },
};
