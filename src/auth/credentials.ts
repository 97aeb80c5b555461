import { z } from 'zod';

/** The body of a password sign-in (`serviceAccountToken` and its deprecated REST form): identifier and password. */
export const credentials = z.strictObject({
  identifier: z.string().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  password: z.string().min(1, 'must not be empty').max(1024, 'at most 1024 characters'),
});
