import { NO_IDENTITY, recordSecurityEvent } from '../../db/security-events.ts';
import type { StrategyContext } from '../../flows/strategy.ts';

/**
 * A refused SSO sign-in (OIDC or SAML) is a security event, as a refused password is: under the person
 * when they are known, else under no identity (as an unknown address at the password step). `reason`
 * names the refusal, never a claim's or an assertion's value.
 */
export async function recordSsoRefusal(
  { service, client, now }: Pick<StrategyContext, 'service' | 'client' | 'now'>,
  refusal: { method: 'oidc' | 'saml'; provider: string; reason: string; identityId?: string | undefined },
): Promise<void> {
  await recordSecurityEvent(service.db, service, {
    type: 'signin.failed',
    subjectId: refusal.identityId ?? NO_IDENTITY,
    ...(refusal.identityId ? {} : { actor: { kind: 'person' as const, id: null } }),
    client,
    details: { method: refusal.method, provider: refusal.provider.slice(0, 100), reason: refusal.reason },
    at: now,
  });
}
