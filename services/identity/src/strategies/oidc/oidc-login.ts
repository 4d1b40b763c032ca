import { createHash } from 'node:crypto';
import type { UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { FlowRow } from '../../db/schema.ts';
import type { MessageValues } from '@acme/i18n/catalogue';
import { messages, type MessageKey } from '../../ui/messages.ts';
import type { FieldMessage } from '../../ui/nodes.ts';
import { personFromClaims, refusalMessage, resolveIdentity } from './accounts.ts';
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
        timeoutMs: ctx.config.upstreamTimeoutMs,
        clock: ctx.clock,
      }),
      rp: createRelyingParty(ctx.config.ssoOutbound),
    };
    services.set(ctx.config, s);
  }
  return s;
}

export const callbackUrl = (config: Config, provider: string) =>
  `${config.publicUrl}/self-service/methods/oidc/callback/${encodeURIComponent(provider)}`;

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** Every refusal the person reads about OIDC sign-in, by what went wrong (catalogue keys). */
const text = {
  unknownProvider: 'ssoUnknownProvider',
  cancelled: 'oidcCancelled',
  state: 'ssoForeignAnswer',
  token: 'oidcTokenUnverified',
  unreachable: 'ssoUnreachable',
  provider: 'oidcUnusableAnswer',
  email: 'oidcNoEmail',
  domain: 'ssoDomain',
  expired: 'oidcExpired',
} as const satisfies Record<string, MessageKey>;

const flowMessage = (message: UiText): FieldMessage => ({ pointer: '#/', message });
const refusal = (key: MessageKey, values?: MessageValues) => flowMessage(messages.refusal(key, values));

function failureMessage(error: RelyingPartyError): FieldMessage {
  const f = error.failure;
  switch (f.reason) {
    case 'denied':
      return f.error === 'access_denied'
        ? refusal(text.cancelled)
        : refusal('oidcRefused', { error: f.error.slice(0, 64) });
    case 'state':
      return refusal(text.state);
    case 'token':
      return refusal(text.token);
    case 'unreachable':
      return refusal(text.unreachable);
    case 'provider':
      return refusal(text.provider);
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
    return { ok: false, messages: [refusal(text.unreachable)] };
  }
  if (!provider) return { ok: false, messages: [refusal(text.unknownProvider)] };
  if (provider.protocol === 'saml') {
    if (!startSaml || !ctx.config.methods.includes('saml'))
      return { ok: false, messages: [refusal(text.unknownProvider)] };
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

const refused = (flowId: string, reason: string, message: UiText | MessageKey): CallbackOutcome => ({
  type: 'flow_error',
  flowId,
  messages: [flowMessage(typeof message === 'string' ? messages.refusal(message) : message)],
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
    return {
      ...refused(row.flow_id, resolved.reason, refusalMessage(resolved, text.provider)),
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
