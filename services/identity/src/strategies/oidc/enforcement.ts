import type { UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import { normalizeEmail } from '../../identities/repo.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { messages } from '../../ui/messages.ts';
import { oidcServices } from './oidc-login.ts';

/**
 * Organisations that enforce single sign-on (issue 20, item 14): password sign-in and password
 * recovery for their domains are refused, with a message that names SSO. The answer depends on the
 * typed address's domain only (and on the one break-glass address the operator exempted), never on
 * whether an account exists, and it comes before any account is looked up or any hash is checked.
 *
 * The policy is the user service's (`GET /admin/sso/domains/{domain}`), held for 30 s per domain; when
 * the user service can not be asked, the last answer for the domain stands, and a domain never asked
 * before is not refused (the session then still needs the user service for consent and tokens).
 */
export async function ssoEnforcedRefusal(
  ctx: Pick<IdentityContext, 'config' | 'clock'>,
  address: string,
): Promise<UiText | undefined> {
  // The normalisation the password lookup applies (trim, lower case, NFKC): a look-alike spelling of
  // the address that finds the account is refused as the address is.
  const email = normalizeEmail(normalizeIdentifier(address));
  const at = email.lastIndexOf('@');
  if (at < 1) return undefined;
  const domain = email.slice(at + 1);
  // Only a domain name can belong to an organisation (the user service's domain rule).
  if (!/^[a-z0-9.-]{1,253}$/.test(domain)) return undefined;
  let policy;
  try {
    policy = await oidcServices(ctx).directory.domainPolicy(domain);
  } catch {
    return undefined;
  }
  if (!policy.enforced || policy.exemptEmails.includes(email)) return undefined;
  return messages.ssoEnforced();
}
