import * as client from 'openid-client';
import { OutboundError, outboundFetch, type OutboundPolicy } from '@acme/service-kit/outbound';
import type { SsoProvider } from './provider-directory.ts';

// The identity service as an OpenID Connect relying party of an organisation's provider, on
// openid-client 6: discovery, authorization code with PKCE (S256), state and nonce, and ID token
// validation (issuer, audience, expiry, nonce, and the signature through the provider's JWKS).
// Every call to the provider (discovery, token, JWKS, userinfo) goes through the same guard as the
// console's checks (`@acme/service-kit/outbound`): https, public addresses checked when connecting.

/** Why a sign-in at the provider did not give us claims; each becomes a flow message. */
export type RelyingPartyFailure =
  | { reason: 'denied'; error: string } // the provider answered error=… (access_denied when cancelled)
  | { reason: 'state' } // the callback's state is not the one we sent
  | { reason: 'token' } // ID token refused: audience, signature, nonce, expiry, issuer
  | { reason: 'unreachable' } // network error or time-out talking to the provider
  | { reason: 'provider' }; // the provider answered something else we can not use

export class RelyingPartyError extends Error {
  readonly failure: RelyingPartyFailure;
  constructor(failure: RelyingPartyFailure) {
    super(`oidc: ${failure.reason}`);
    this.failure = failure;
  }
}

interface AuthorizationRequest {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Plain-http issuers are accepted on the policy's development hosts only (the stand-in). */
function isPlainHttp(issuer: string, policy: OutboundPolicy): boolean {
  const u = new URL(issuer);
  return u.protocol === 'http:' && policy.httpHosts.includes(u.hostname.toLowerCase());
}

const METADATA_TTL_MS = 10 * 60 * 1000;

export interface RelyingParty {
  /** `statePrefix` (the flow id) lets the callback name its flow before anything is looked up. */
  authorizationRequest(
    provider: SsoProvider,
    redirectUri: string,
    statePrefix?: string,
  ): Promise<AuthorizationRequest>;
  /** Exchanges the callback's code and returns the validated claims (merged with userinfo when configured). */
  finish(
    provider: SsoProvider,
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<Record<string, unknown>>;
}

/** What the guard refused or could not reach is `unreachable` (the person is told no more). */
const UNREACHABLE: ReadonlySet<string> = new Set([
  'invalid_url',
  'not_https',
  'private_address',
  'unreachable',
  'timeout',
]);

/** `policy`: the guard of every call to a provider, with the time-out of each (10 s). */
export function createRelyingParty(policy: OutboundPolicy): RelyingParty {
  const metadata = new Map<string, { value: client.ServerMetadata; until: number }>();
  const guardedFetch = outboundFetch(policy) as client.CustomFetch;

  function classify(error: unknown): RelyingPartyError {
    if (error instanceof RelyingPartyError) return error;
    if (error instanceof client.AuthorizationResponseError) {
      return new RelyingPartyError({ reason: 'denied', error: error.error });
    }
    // openid-client wraps oauth4webapi's errors: look at the whole cause chain.
    const chain: { name?: string; code?: string; message?: string }[] = [];
    for (let e = error as { cause?: unknown } | undefined; e && chain.length < 5; e = e.cause as typeof e) {
      chain.push(e as { name?: string; code?: string; message?: string });
    }
    const any = (test: (e: { name?: string; code?: string; message?: string }) => boolean) =>
      chain.some(test);
    const refused = chain.find((e): e is OutboundError => e instanceof OutboundError);
    if (refused) {
      return new RelyingPartyError({ reason: UNREACHABLE.has(refused.reason) ? 'unreachable' : 'provider' });
    }
    if (
      any((e) => e.code === 'OAUTH_TIMEOUT' || e.name === 'TimeoutError' || e.name === 'AbortError') ||
      any((e) => e.message === 'fetch failed' || /ECONNREFUSED|ENOTFOUND|ECONNRESET/.test(e.code ?? ''))
    ) {
      return new RelyingPartyError({ reason: 'unreachable' });
    }
    if (any((e) => /"state"/.test(e.message ?? ''))) return new RelyingPartyError({ reason: 'state' });
    if (
      any(
        (e) =>
          /^OAUTH_(JWT_CLAIM_COMPARISON_FAILED|JWT_TIMESTAMP_CHECK_FAILED|KEY_SELECTION_FAILED|MISSING_REQUIRED_CLAIM)$/.test(
            e.code ?? '',
          ) || /signature verification failed|"nonce"|"aud"|"iss"/.test(e.message ?? ''),
      )
    ) {
      return new RelyingPartyError({ reason: 'token' });
    }
    return new RelyingPartyError({ reason: 'provider' });
  }

  /**
   * A configuration for one use. Discovery is cached for 10 minutes, but each configuration starts with
   * an empty JWKS cache: the signing keys are fetched for every sign-in, so a rotated key is picked up
   * at once (sign-ins are rare enough for one JWKS request each).
   */
  async function configuration(provider: SsoProvider): Promise<client.Configuration> {
    const insecure = isPlainHttp(provider.issuer, policy);
    const cached = metadata.get(provider.issuer);
    let config: client.Configuration;
    if (cached && cached.until > Date.now()) {
      config = new client.Configuration(
        cached.value,
        provider.clientId,
        undefined,
        client.ClientSecretBasic(provider.clientSecret),
      );
      if (insecure) client.allowInsecureRequests(config);
    } else {
      config = await client.discovery(
        new URL(provider.issuer),
        provider.clientId,
        undefined,
        client.ClientSecretBasic(provider.clientSecret),
        {
          timeout: policy.timeoutMs / 1000,
          [client.customFetch]: guardedFetch,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        },
      );
      metadata.set(provider.issuer, { value: config.serverMetadata(), until: Date.now() + METADATA_TTL_MS });
    }
    config[client.customFetch] = guardedFetch;
    config.timeout = policy.timeoutMs / 1000;
    client.enableNonRepudiationChecks(config);
    return config;
  }

  return {
    async authorizationRequest(provider, redirectUri, statePrefix) {
      try {
        const config = await configuration(provider);
        const codeVerifier = client.randomPKCECodeVerifier();
        const state = statePrefix ? `${statePrefix}.${client.randomState()}` : client.randomState();
        const nonce = client.randomNonce();
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: redirectUri,
          scope: provider.scopes.join(' '),
          code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        });
        return { url: url.toString(), state, nonce, codeVerifier };
      } catch (error) {
        throw classify(error);
      }
    },

    async finish(provider, callbackUrl, expected) {
      try {
        const config = await configuration(provider);
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: expected.codeVerifier,
          expectedState: expected.state,
          expectedNonce: expected.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) throw new RelyingPartyError({ reason: 'token' });
        if (!provider.userinfo) return { ...claims };
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        // The ID token's own claims win where both speak.
        return { ...info, ...claims };
      } catch (error) {
        throw classify(error);
      }
    },
  };
}
