import { z } from 'zod';
import type { Interaction } from 'oidc-provider';
import type { ConsentSession } from '../claims.ts';
import {
  ACCESS_TOKEN_RESOURCE,
  requestedResource,
  type OAuth2Context,
  type OAuth2Runtime,
} from '../context.ts';
import { OAuth2Error } from '../errors.ts';
import { clientView, loadPendingInteraction, oidcContext, saveInteraction, splitScope } from './challenge.ts';
import { parseBody, rejectPendingRequest } from './login.ts';
import { bindingFor, rememberSessionBinding, signedInWithM365 } from './grant-binding.ts';
import { clientAddressOf } from '../grant-guard.ts';
import { resumeRedirect } from './resume-verifier.ts';

/** Hydra's consent request: GET, PUT accept, PUT reject (`/admin/oauth2/auth/requests/consent`). */

const JsonObject = z.record(z.string(), z.unknown());

const ConsentAcceptBody = z.object({
  grant_scope: z.array(z.string().max(255)).max(50).optional(),
  grant_access_token_audience: z.array(z.string().max(255)).max(20).optional(),
  remember: z.boolean().optional(),
  remember_for: z.number().int().min(0).optional(),
  context: JsonObject.optional(),
  session: z.object({ access_token: JsonObject.optional(), id_token: JsonObject.optional() }).optional(),
});

interface LoginSubmission {
  loginChallenge?: string;
  identityProviderSessionId?: string;
  context?: Record<string, unknown>;
}

export async function getConsentRequest(rt: OAuth2Runtime, challenge: string) {
  const { interaction, requestUrl } = await loadPendingInteraction(rt, challenge, 'consent');
  const params = interaction.params;
  const login = (interaction.lastSubmission?.login ?? {}) as LoginSubmission;
  const subject = interaction.session?.accountId ?? '';
  return {
    challenge,
    consent_request_id: challenge,
    skip: await consentRemembered(rt, subject, params),
    subject,
    client: await clientView(rt, params.client_id),
    request_url: requestUrl,
    requested_scope: splitScope(params.scope),
    // A resource server the client asked for (RFC 8707); none for the platform's own APIs.
    requested_access_token_audience: [requestedResource(rt.config, params)].filter(
      (r) => r !== ACCESS_TOKEN_RESOURCE,
    ),
    login_challenge: login.loginChallenge ?? '',
    login_session_id: interaction.session?.uid ?? '',
    identity_provider_session_id: login.identityProviderSessionId ?? '',
    acr: interaction.session?.acr ?? '',
    amr: interaction.session?.amr ?? [],
    context: login.context ?? {},
    oidc_context: oidcContext(params),
  };
}

/**
 * Hydra's `skip`: the subject holds a live grant for this client that covers every scope asked now
 * (an earlier Allow, until it is revoked or ends), and the request does not ask for `prompt=consent`.
 * A client that asks for more scopes than were granted is asked again.
 */
async function consentRemembered(
  rt: OAuth2Runtime,
  subject: string,
  params: Record<string, unknown>,
): Promise<boolean> {
  if (!subject || typeof params.client_id !== 'string') return false;
  if (splitScope(params.prompt).includes('consent')) return false;
  const wanted = splitScope(params.scope);
  const grants = await rt.claims.grantsOf(subject);
  return grants.some(
    (g) => g.clientId === params.client_id && wanted.every((scope) => g.scopes.includes(scope)),
  );
}

export async function acceptConsentRequest(rt: OAuth2Runtime, challenge: string, rawBody: unknown) {
  const body = parseBody(ConsentAcceptBody, rawBody);
  const { interaction } = await loadPendingInteraction(rt, challenge, 'consent');
  const accountId = interaction.session?.accountId;
  const clientId = interaction.params.client_id;
  if (!accountId || typeof clientId !== 'string') {
    throw OAuth2Error.invalidRequest('The consent request has no authenticated subject.');
  }

  const session = {
    access_token: body.session?.access_token ?? {},
    id_token: body.session?.id_token ?? {},
  };
  await grantConsent(rt, interaction, accountId, clientId, body.grant_scope ?? [], session);
  return { redirect_to: await resumeRedirect(rt, interaction, 'consent') };
}

/** Saves the grant and its consent session (bound to the identity session), and answers the interaction. */
async function grantConsent(
  rt: OAuth2Runtime,
  interaction: Interaction,
  accountId: string,
  clientId: string,
  grantScope: string[],
  session: ConsentSession,
): Promise<void> {
  const { Grant } = rt.provider;
  const existing = interaction.grantId ? await Grant.find(interaction.grantId) : undefined;
  const grant = existing ?? new Grant({ accountId, clientId });
  // A Microsoft 365 person's grant has no identity session to end with: a shorter absolute lifetime.
  const m365 = signedInWithM365(interaction);
  const ttl = m365 ? rt.config.ttl.m365Grant : rt.config.ttl.grant;
  if (m365) (grant as unknown as { expiresIn: number }).expiresIn = ttl;

  const requested = splitScope(interaction.params.scope);
  // The resource the client asked for (RFC 8707); its tokens carry it as their audience.
  const resource = requestedResource(rt.config, interaction.params);
  const wanted = new Set(grantScope);
  const granted = requested.filter((s) => wanted.has(s));
  const refused = requested.filter((s) => !wanted.has(s));
  if (granted.length) {
    grant.addOIDCScope(granted.join(' '));
    grant.addResourceScope(resource, granted.join(' '));
  }
  if (refused.length) {
    grant.rejectOIDCScope(refused.join(' '));
    grant.rejectResourceScope(resource, refused.join(' '));
  }
  const grantId = await grant.save();
  const binding = await bindingFor(rt, interaction);
  await rt.claims.saveConsentSession(grantId, session, ttl, binding);
  // A first login in this browser had no browser session to bind yet at its accept: it has one now,
  // so the next authorization's remembered login is checked against this identity session too.
  if (binding.identitySessionId && binding.subject) {
    await rememberSessionBinding(rt, interaction.session?.uid, {
      identitySessionId: binding.identitySessionId,
      subject: binding.subject,
    });
  }

  interaction.result = { ...interaction.lastSubmission, consent: { grantId } };
  await saveInteraction(interaction);
}

/**
 * Hydra's `skip_consent` for first-party clients: the server grants every requested scope with the
 * claims the user service reads for the identity session (the same checks as the consent route),
 * and sends the browser straight back to the resume URL with a consent verifier. When the claims
 * cannot be granted (no identity session known, second factor overdue, user not linked, user
 * service down), the consent screen runs as usual and shows the reason.
 */
export async function skipFirstPartyConsent(
  c: OAuth2Context & { provider: OAuth2Runtime['provider'] },
  interaction: Interaction,
): Promise<string | undefined> {
  if (!c.claimsSource) return undefined;
  const accountId = interaction.session?.accountId;
  const clientId = interaction.params.client_id;
  if (!accountId || typeof clientId !== 'string') return undefined;
  const binding = await bindingFor(c, interaction);
  if (!binding.identitySessionId) return undefined;
  let lookup;
  try {
    lookup = await c.claimsSource.fetch({
      identitySessionId: binding.identitySessionId,
      subject: accountId,
      purpose: 'sign-in',
      clientAddress: clientAddressOf(),
    });
  } catch (err) {
    c.logger.warn({ err: { message: (err as Error).message } }, 'consent skip unavailable');
    return undefined;
  }
  if (lookup.kind !== 'granted') return undefined;
  const rt = c as OAuth2Runtime;
  await grantConsent(
    rt,
    interaction,
    accountId,
    clientId,
    splitScope(interaction.params.scope),
    lookup.session,
  );
  return resumeRedirect(rt, interaction, 'consent');
}

export async function rejectConsentRequest(rt: OAuth2Runtime, challenge: string, rawBody: unknown) {
  return rejectPendingRequest(rt, challenge, rawBody, 'consent');
}
