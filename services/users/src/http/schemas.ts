import { z } from 'zod';

export { emailSchema } from '@acme/users-contract/console';

/** A DNS name such as `acme.test`, lower-cased. */
export const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(
    z
      .string()
      .max(253)
      .regex(
        /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
        'must be a domain name',
      ),
  );

export const uuidSchema = z.uuid();

/** The part after the last `@` of a normalised address. */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}
