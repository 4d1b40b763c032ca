import { z } from 'zod';
import { durationSetting } from './duration.ts';

/**
 * The privileged session's age, one setting for every part that asks for a recent sign-in: the
 * identity service (changing credentials) and the user service (unlinking the source-code host).
 */
export const privilegedSessionEnvSchema = z.object({
  PRIVILEGED_SESSION_MAX_AGE: durationSetting('1h').describe(
    'How long after a sign-in the session may change credentials or unlink the source-code host without signing in again.',
  ),
});
