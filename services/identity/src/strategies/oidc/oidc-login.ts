import { createHash } from 'node:crypto';
import type { UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { FlowRow } from '../../db/schema.ts';
import { messages } from '../../ui/messages.ts';
import type { FieldMessage } from '../../ui/nodes.ts';
import { personFromClaims, resolveIdentity } from './accounts.ts';
import { createProviderDirectory, type ProviderDirectory, type SamlProvider } from './provider-directory.ts';
import { createRelyingParty, RelyingPartyError, type RelyingParty } from './relying-party.ts';

// The `oidc` login method: `{method: "oidc", provider}` sends the browser to the organisation's
// provider; its callback `/self-service/methods/oidc/callback/{provider}` signs the person in.
// Engine-independent: returns outcomes the login flow turns into answers.

export const OIDC_CALLBACK_PATH = '/self-service/methods/oidc/callback/:provider';

/** How long a sign-in at the provider may take (the login flow may live longer). */
const STATE_TTL_MS = 30 * 60 * 1000;

interface OidcServices {
  directory: ProviderDirectory;
  rp: RelyingParty;
}

const services = new WeakMap<Config, OidcServices>();

/** One provider directory and relying party per running service (keyed by its configuration). */
export function oidcServices(ctx: Pick<IdentityContext, 'config' | 'clock'>): OidcServices {
  let s = services.get(ctx.config);
  if (!s) {
    s = {
      directory: createProviderDirectory({
        usersAdminUrl: ctx.config.usersAdminUrl,
        usersAdminKey: ctx.config.usersAdminKey,
        timeoutMs: ctx.config.oidcTimeoutMs,
        clock: ctx.clock,
      }),
      rp: createRelyingParty({ timeoutMs: ctx.config.oidcTimeoutMs }),
    };
    services.set(ctx.config, s);
  }
  return s;
}

export const callbackUrl = (config: Config, provider: string) =>
  `${config.publicUrl}/self-service/methods/oidc/callback/${encodeURIComponent(provider)}`;

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

const text = {
  unknownProvider: 'This single sign-on provider is not configured. Contact your administrator.',
  cancelled: "Sign-in was cancelled at your organisation's identity provider.",
  refused: (error: string) => `Your organisation's identity provider refused the sign-in (${error}).`,
  state:
    'The answer from your identity provider does not belong to this sign-in attempt, or was already used. Please try again.',
  token:
    "Your organisation's identity provider's answer could not be verified. Please try again or contact your administrator.",
  unreachable: "Your organisation's identity provider could not be reached. Please try again later.",
  provider: "Your organisation's identity provider gave an answer we could not use. Please try again.",
  email: "Your organisation's identity provider did not confirm an email address for you.",
  domain: "Your organisation's identity provider can not sign in this email address.",
  inactive: 'This account is not active. Contact your administrator.',
  refusedMember: (m: string) => m,
  expired: 'This sign-in took too long. Please try again.',
};

const flowMessage = (t: string): FieldMessage => ({ pointer: '#/', message: messages.generic(t) as UiText });

function failureMessage(error: RelyingPartyError): FieldMessage {
  const f = error.failure;
  switch (f.reason) {
    case 'denied':
      return flowMessage(f.error === 'access_denied' ? text.cancelled : text.refused(f.error.slice(0, 64)));
    case 'state':
      return flowMessage(text.state);
    case 'token':
      return flowMessage(text.token);
    case 'unreachable':
      return flowMessage(text.unreachable);
    case 'provider':
      return flowMessage(text.provider);
  }
}

export type StartOutcome = { ok: true; redirectTo: string } | { ok: false; messages: FieldMessage[] };

/** A submit with `method: oidc`: remember state, nonce and PKCE verifier for the flow, and send the browser off. */
export async function startOidcLogin(
  ctx: IdentityContext,
  flow: FlowRow,
  body: Record<string, unknown>,
  /** The start of a SAML provider's sign-in (strategies/saml), when saml is an enabled method. */
  startSaml?: (
    ctx: IdentityContext,
    flow: FlowRow,
    provider: SamlProvider,
  ) => Promise<{ ok: true; redirectTo: string } | { ok: false; messages: FieldMessage[] }>,
): Promise<StartOutcome> {
  const providerId = body.provider;
  if (typeof providerId !== 'string' || providerId === '') {
    return {
      ok: false,
      messages: [{ pointer: '#/provider', message: messages.required('provider') as UiText }],
    };
  }
  const { directory, rp } = oidcServices(ctx);
  let provider;
  try {
    provider = await directory.get(providerId);
  } catch {
    return { ok: false, messages: [flowMessage(text.unreachable)] };
  }
  if (!provider) return { ok: false, messages: [flowMessage(text.unknownProvider)] };
  if (provider.protocol === 'saml') {
    if (!startSaml || !ctx.config.methods.includes('saml'))
      return { ok: false, messages: [flowMessage(text.unknownProvider)] };
    const started = await startSaml(ctx, flow, provider);
    return started.ok ? started : { ok: false, messages: started.messages };
  }
  try {
    const request = await rp.authorizationRequest(
      provider,
      callbackUrl(ctx.config, provider.provider),
      flow.id,
    );
    const now = ctx.clock.now();
    await ctx.db
      .insertInto('identity_oidc_states')
      .values({
        state_hash: hashState(request.state),
        flow_id: flow.id,
        provider: provider.provider,
        nonce: request.nonce,
        code_verifier: request.codeVerifier,
        created_at: now,
        expires_at: new Date(now.getTime() + STATE_TTL_MS),
        used_at: null,
      })
      .execute();
    // Old attempts are of no use to anyone.
    await ctx.db
      .deleteFrom('identity_oidc_states')
      .where('expires_at', '<', new Date(now.getTime() - STATE_TTL_MS))
      .execute();
    return { ok: true, redirectTo: request.url };
  } catch (error) {
    if (error instanceof RelyingPartyError) return { ok: false, messages: [failureMessage(error)] };
    throw error;
  }
}

export type CallbackOutcome =
  /** No flow can be named (unknown state): the error page. */
  | { type: 'no_flow'; reason: string }
  /**
   * The flow gets `messages`; the browser goes back to it. `reason` names the refusal for the
   * security event log (never a claim's value); `identityId` when the person is known.
   */
  | { type: 'flow_error'; flowId: string; messages: FieldMessage[]; reason: string; identityId?: string }
  | { type: 'success'; flowId: string; identityId: string; provider: string };

const refused = (flowId: string, reason: string, message: string): CallbackOutcome => ({
  type: 'flow_error',
  flowId,
  messages: [flowMessage(message)],
  reason,
});

/**
 * The provider's answer. `query` is the callback's query; `rawQuery` its exact text (for the
 * redirect URI check). The state is single use: a replayed callback is refused on its flow.
 */
export async function finishOidcCallback(
  ctx: IdentityContext,
  providerParam: string,
  query: Record<string, string>,
  rawQuery: string,
  /** Checks on the flow before the code is exchanged (the browser that started it); an outcome stops. */
  guard: (flowId: string) => Promise<CallbackOutcome | undefined> = async () => undefined,
): Promise<CallbackOutcome> {
  const state = query.state;
  if (!state || state.length > 512) {
    return { type: 'no_flow', reason: 'The identity provider answered without a sign-in state.' };
  }
  const now = ctx.clock.now();
  const row = await ctx.db
    .selectFrom('identity_oidc_states')
    .selectAll()
    .where('state_hash', '=', hashState(state))
    .executeTakeFirst();
  if (!row || row.provider !== providerParam) {
    return {
      type: 'no_flow',
      reason: 'The identity provider answered for a sign-in attempt we do not know.',
    };
  }
  const stop = await guard(row.flow_id);
  if (stop) return stop;
  // Single use: exactly one callback per state gets past this update.
  const claimed = await ctx.db
    .updateTable('identity_oidc_states')
    .set({ used_at: now })
    .where('state_hash', '=', row.state_hash)
    .where('used_at', 'is', null)
    .returning('state_hash')
    .executeTakeFirst();
  if (!claimed) return refused(row.flow_id, 'state_replayed', text.state);
  if (row.expires_at.getTime() <= now.getTime()) {
    return refused(row.flow_id, 'expired', text.expired);
  }

  const { directory, rp } = oidcServices(ctx);
  let provider;
  try {
    provider = await directory.get(row.provider);
  } catch {
    return refused(row.flow_id, 'directory_unreachable', text.unreachable);
  }
  if (provider?.protocol !== 'oidc') return refused(row.flow_id, 'unknown_provider', text.unknownProvider);

  let claims: Record<string, unknown>;
  try {
    const url = new URL(`${callbackUrl(ctx.config, provider.provider)}${rawQuery ? `?${rawQuery}` : ''}`);
    claims = await rp.finish(provider, url, { state, nonce: row.nonce, codeVerifier: row.code_verifier });
  } catch (error) {
    if (error instanceof RelyingPartyError) {
      return {
        type: 'flow_error',
        flowId: row.flow_id,
        messages: [failureMessage(error)],
        reason: `provider_${error.failure.reason}`,
      };
    }
    throw error;
  }
  const person = personFromClaims(provider, claims);
  if (!person.ok) {
    return refused(row.flow_id, `claims_${person.reason}`, text[person.reason]);
  }
  let resolved;
  try {
    resolved = await resolveIdentity(ctx, directory, provider, person.person, now);
  } catch {
    return refused(row.flow_id, 'directory_unreachable', text.unreachable);
  }
  if (!resolved.ok) {
    const t =
      resolved.reason === 'inactive' ? text.inactive : text.refusedMember(resolved.message ?? text.provider);
    return {
      ...refused(row.flow_id, resolved.reason, t),
      ...(resolved.identityId ? { identityId: resolved.identityId } : {}),
    };
  }
  return {
    type: 'success',
    flowId: row.flow_id,
    identityId: resolved.identityId,
    provider: provider.provider,
  };
}
