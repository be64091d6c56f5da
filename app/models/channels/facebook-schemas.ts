import { z } from 'zod';
import { SOCIAL_NAME_MAX, SOCIAL_SECRET_MAX } from './social-constants';
export * from './social-constants';

export const socialName = z
  .string({ error: 'Inbox Name is required' })
  .trim()
  .min(1, 'Inbox Name is required')
  .max(SOCIAL_NAME_MAX, 'Length must be less than or equal to 20 characters');

const secret = (label: string, required: boolean) => {
  const base = z.string().trim().max(SOCIAL_SECRET_MAX, `${label} must be at most ${SOCIAL_SECRET_MAX} characters`);
  return required
    ? z
        .string({ error: `${label} is required` })
        .trim()
        .min(1, `${label} is required`)
        .max(SOCIAL_SECRET_MAX, `${label} must be at most ${SOCIAL_SECRET_MAX} characters`)
    : base.optional();
};

export function facebookSchema(mode: 'create' | 'update') {
  return z.object({
    name: socialName,
    pageId: z
      .string({ error: 'Page ID is required' })
      .trim()
      .regex(/^\d{1,30}$/, 'Page ID is the number Meta shows for the page'),
    pageAccessToken: secret('Page Access Token', mode === 'create'),
    appSecret: secret('App Secret', mode === 'create'),
  });
}

export type FacebookInput = z.infer<ReturnType<typeof facebookSchema>>;
