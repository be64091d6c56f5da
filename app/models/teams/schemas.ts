import { z } from 'zod';
import { TEAM_DESCRIPTION_MAX, TEAM_NAME_MIN_MESSAGE, TEAM_NAME_MAX_MESSAGE, TEAM_MEMBER_REQUIRED_MESSAGE } from './constants';
export * from './constants';

/** Team form (section 5, "Team"): name 2 to 20, optional description, at least one member. */
export const TeamSchema = z.object({
  name: z.string({ error: TEAM_NAME_MIN_MESSAGE }).trim().min(2, TEAM_NAME_MIN_MESSAGE).max(20, TEAM_NAME_MAX_MESSAGE),
  description: z
    .string()
    .trim()
    .max(TEAM_DESCRIPTION_MAX, `Length must be less than or equal to ${TEAM_DESCRIPTION_MAX} characters`)
    .optional(),
  assigneeIds: z
    .array(z.number({ error: TEAM_MEMBER_REQUIRED_MESSAGE }).int(TEAM_MEMBER_REQUIRED_MESSAGE).positive(TEAM_MEMBER_REQUIRED_MESSAGE), {
      error: TEAM_MEMBER_REQUIRED_MESSAGE,
    })
    .min(1, TEAM_MEMBER_REQUIRED_MESSAGE),
});

export type TeamInput = z.infer<typeof TeamSchema>;
