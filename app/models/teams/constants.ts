/** Plain values of the forms beside them (schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
export const TEAM_NAME_MIN_MESSAGE = 'Length must be at least 2 characters';

export const TEAM_NAME_MAX_MESSAGE = 'Length must be less than or equal to 20 characters';

export const TEAM_DESCRIPTION_MAX = 200;

export const TEAM_MEMBER_REQUIRED_MESSAGE = 'Team member must be specified';
