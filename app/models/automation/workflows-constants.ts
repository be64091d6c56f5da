/** Plain values of the forms beside them (workflows.schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import { ACTION_LABELS, ACTIONS_BY_EVENT, WORKFLOW_EVENT_LABELS, WORKFLOW_EVENTS, type ActionType, type WorkflowEvent } from './rule-constants';

export const WORKFLOW_NAME_MAX = 20;

export const WORKFLOW_DESCRIPTION_MAX = 150;

/** Rows a builder section may hold: enough for any real rule, few enough to bound the work of one event. */
export const WORKFLOW_ROWS_MAX = 20;

export const WORKFLOW_NAME_REQUIRED = 'Name is not allowed to be empty';

export const WORKFLOW_NAME_TOO_LONG = `Length must be less than or equal to ${WORKFLOW_NAME_MAX} characters`;

export const WORKFLOW_DESCRIPTION_TOO_LONG = `Length must be less than or equal to ${WORKFLOW_DESCRIPTION_MAX} characters`;

export const WORKFLOW_EVENT_REQUIRED = 'Event must be specified';

export const TOO_MANY_ROWS = `At most ${WORKFLOW_ROWS_MAX} rows`;

/** The spec says creation "is blocked when the limit is reached" without wording it; this is in the voice of its plan message. */
export const workflowLimitMessage = (limit: number) =>
  `Your current plan allows up to ${limit} workflow${limit === 1 ? '' : 's'}. Please contact your account administrator.`;

export const actionNotOfferedMessage = (type: ActionType, event: WorkflowEvent) => `${ACTION_LABELS[type]} is not offered for ${WORKFLOW_EVENT_LABELS[event]}`;

export function isActionOffered(event: string, type: string) {
  return (WORKFLOW_EVENTS as readonly string[]).includes(event) && (ACTIONS_BY_EVENT[event as WorkflowEvent] as readonly string[]).includes(type);
}

/** Section 4: the confirmation before the switch. */
export const STATUS_CHANGE_TITLE = 'Status Change';

export const STATUS_CHANGE_TEXT = 'Are you sure you want to update status ?';
