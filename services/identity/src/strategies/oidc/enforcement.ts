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
 * It is the early answer only: once the account is known, `ssoRequiredRefusal` decides by the
 * person's organisation (an address can be changed, membership can not).
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

/**
 * Issue 31, item 4: whether the person an identity belongs to must sign in through their
 * organisation's provider, decided by the organisation they are a member of (the user service looks
 * the identity up), never by an address they could have changed. Asked once the account is known:
 * after a password or passkey proved who signs in (so nothing is said to someone who did not), and
 * before an address, password or passkey is set up in settings. The break-glass org-admin is exempt.
 *
 * When the user service can not be asked, nothing is refused here: such a session still gets no
 * token without the user service, whose token claims refuse a session the provider did not sign in.
 */
export async function ssoRequiredRefusal(
  ctx: Pick<IdentityContext, 'config' | 'clock'>,
  identityId: string,
): Promise<UiText | undefined> {
  let policy;
  try {
    policy = await oidcServices(ctx).directory.identityPolicy(identityId);
  } catch {
    return undefined;
  }
  return policy.enforced ? messages.ssoEnforced() : undefined;
}

/** The early answer by the identity's current address, then the answer by its organisation. */
export async function ssoRefusalFor(
  ctx: Pick<IdentityContext, 'config' | 'clock'>,
  identity: { id: string; email: string },
): Promise<UiText | undefined> {
  return (await ssoEnforcedRefusal(ctx, identity.email)) ?? (await ssoRequiredRefusal(ctx, identity.id));
}
