import type { UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import { normalizeEmail } from '../../identities/repo.ts';
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
  const email = normalizeEmail(address);
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1) return undefined;
  const domain = email.slice(at + 1);
  let policy;
  try {
    policy = await oidcServices(ctx).directory.domainPolicy(domain);
  } catch {
    return undefined;
  }
  if (!policy.enforced || policy.exemptEmails.includes(email)) return undefined;
  return messages.ssoEnforced();
}
