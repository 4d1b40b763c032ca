import type { AdapterPayload, Interaction } from 'oidc-provider';
import type { GrantBinding } from '../claims.ts';
import type { OAuth2Context } from '../context.ts';

/**
 * Which identity session a grant stands for. The login accept names it
 * (`identity_provider_session_id`); it is kept with the authorization server's own browser session
 * too, so that a later authorization in the same browser (signed in silently, without a login
 * request) binds its grant to the same identity session.
 */

const MODEL = 'SessionBinding';

interface LoginSubmission {
  identityProviderSessionId?: string;
  context?: { authenticationMode?: unknown };
}

/**
 * A login the user service accepted for a Microsoft 365 person (`context.authenticationMode:
 * "m365"`, a device sign-in): there is no identity session; the grant stands for the person, whom
 * every refresh re-checks (grant-guard.ts), and it lives at most OAUTH2_M365_GRANT_TTL.
 */
export function signedInWithM365(interaction: Interaction): boolean {
  const login = (interaction.lastSubmission?.login ?? {}) as LoginSubmission;
  return login.context?.authenticationMode === 'm365';
}

export async function rememberSessionBinding(
  c: OAuth2Context,
  sessionUid: string | undefined,
  binding: { identitySessionId: string; subject: string },
): Promise<void> {
  if (!sessionUid || !binding.identitySessionId) return;
  await c.adapters.get(MODEL).upsert(sessionUid, binding as unknown as AdapterPayload, c.config.ttl.session);
}

/** The identity session the browser session `sessionUid` signed `subject` in with, if it was kept. */
export async function rememberedIdentitySession(
  c: OAuth2Context,
  sessionUid: string | undefined,
  subject: string | null,
): Promise<string | null> {
  const stored = sessionUid
    ? ((await c.adapters.get(MODEL).findRecord(sessionUid))?.payload as unknown as
        { identitySessionId?: string; subject?: string } | undefined)
    : undefined;
  return stored?.identitySessionId && stored.subject === subject ? stored.identitySessionId : null;
}

export async function bindingFor(c: OAuth2Context, interaction: Interaction): Promise<GrantBinding> {
  const subject = interaction.session?.accountId ?? null;
  const login = (interaction.lastSubmission?.login ?? {}) as LoginSubmission;
  if (login.identityProviderSessionId) return { identitySessionId: login.identityProviderSessionId, subject };
  return {
    identitySessionId: await rememberedIdentitySession(c, interaction.session?.uid, subject),
    subject,
  };
}
