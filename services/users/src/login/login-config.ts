import type { Kysely } from 'kysely';
import type { UsersDb } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { domainOf, emailSchema } from '../http/schemas.ts';
import { findLoginSettingsByDomain } from '../organisations/repository.ts';
import { domainAllowsSignUp } from '../signup/service.ts';
import type { LoginConfig } from './schemas.ts';

/** The product name of the MAGIC application. */
const MAGIC_PRODUCT = 'MAGIC';

/**
 * The email step's answer, computed from the organisation owning the address's domain and never
 * from user records: known and unknown addresses get the same shape, status and work (per-domain queries only).
 */
export async function loginConfigFor(db: Kysely<UsersDb>, emailAddress: string): Promise<LoginConfig> {
  const parsed = emailSchema.safeParse(emailAddress);
  if (!parsed.success) throw new AppError('INVALID_EMAIL', 'emailAddress must be a valid email address.');
  const email = parsed.data;
  const settings = await findLoginSettingsByDomain(db, domainOf(email));
  return {
    email,
    sso: settings?.sso_config != null,
    provider: settings?.sso_config?.provider ?? null,
    m365: settings?.m365 ?? false,
    magic: settings?.products.includes(MAGIC_PRODUCT) ?? false,
    // A fact about the domain, as the others: the Email step may offer "Create an account".
    selfSignUp: await domainAllowsSignUp(db, domainOf(email)),
  };
}
