import { z } from 'zod';
import { SOCIAL_SECRET_MAX, socialName } from './facebook-schemas';

/**
 * X (Twitter) direct messages inbox form: the X account's user id, the app's consumer secret (CRC and webhook
 * signatures) and an OAuth 2.0 user access token with dm.write (replies). Secrets are kept when left empty on update.
 */
export function twitterSchema(mode: 'create' | 'update') {
  const secret = (label: string) =>
    mode === 'create'
      ? z
          .string({ error: `${label} is required` })
          .trim()
          .min(1, `${label} is required`)
          .max(SOCIAL_SECRET_MAX, `${label} must be at most ${SOCIAL_SECRET_MAX} characters`)
      : z.string().trim().max(SOCIAL_SECRET_MAX, `${label} must be at most ${SOCIAL_SECRET_MAX} characters`).optional();
  return z.object({
    name: socialName,
    userId: z
      .string({ error: 'Account User ID is required' })
      .trim()
      .regex(/^\d{1,30}$/, 'Account User ID is the numeric id of the X account'),
    consumerSecret: secret('API Key Secret'),
    accessToken: secret('User Access Token'),
  });
}

export type TwitterInput = z.infer<ReturnType<typeof twitterSchema>>;
