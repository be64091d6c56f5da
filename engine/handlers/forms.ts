import { completeFormSubmission } from '../../app/models/forms/forms.server';
import type { EventHandler } from './types';

/**
 * A public form's submission, filed (ADR 112): the contact, its company, the conversation and (through the events
 * those write) the agents' notifications, from the `form_submitted` the submission committed. Runs first, so that
 * workflows, webhooks and the rest read the event with its contactId and conversationId: the payload is completed
 * in the database and on the event object this batch passes on. Records itself, in the transaction of its work:
 * exactly once per event, however often the job is delivered.
 */
export const formSubmissions: EventHandler = {
  name: 'forms',
  on: ['form_submitted'],
  recordsItself: true,
  completesPayload: true,
  async handle(event) {
    const outcome = await completeFormSubmission(event);
    // The later handlers of this batch hold this very object: they see the completed payload.
    event.payload = outcome.payload;
    return outcome;
  },
};
