import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { findProviderByOrganisation } from '../sso/repository.ts';
import type { ConsoleCaller } from '../access/auth.ts';
import { fetchDiscovery, fetchJwks, SUPPORTED_ID_TOKEN_ALGS, type Discovery } from './sso-connection.ts';
import { fetchJson, OutboundError } from '@acme/service-kit/outbound';

// Test sign-in (issue 24): the console runs a real authorization-code sign-in (PKCE, state, nonce)
// at the organisation's provider and shows the ID token's claims. It signs nobody in: the callback
// is the admin application's own page (not the identity service's), and the state it carries is
// bound to the admin who started the test, spent by its first use, and valid for 10 minutes.

/** How long a started Test sign-in may come back. */
const SSO_TEST_TTL_MS = 10 * 60 * 1000;

const b64url = (bytes: Buffer) => bytes.toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

function testFailed(message: string): AppError {
  return new AppError('SSO_TEST_FAILED', message);
}

async function discoveryOrFail(ctx: UsersContext, issuer: string): Promise<Discovery> {
  const discovery = await fetchDiscovery(issuer, ctx.config.consoleSso);
  if ('failure' in discovery) {
    throw testFailed(`The provider's discovery document could not be used (${discovery.failure}).`);
  }
  if (!discovery.document.authorization_endpoint || !discovery.document.token_endpoint) {
    throw testFailed('The discovery document names no authorization or token endpoint.');
  }
  return discovery.document;
}

export async function startTestSignIn(
  ctx: UsersContext,
  caller: ConsoleCaller,
  organisationId: string,
): Promise<{ authorizationUrl: string; state: string; redirectUri: string; expiresAt: string }> {
  const provider = await findProviderByOrganisation(ctx.db, organisationId);
  if (!provider)
    throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
  if (provider.protocol !== 'oidc') throw samlHasNoTestSignIn();
  const discovery = await discoveryOrFail(ctx, provider.issuer);
  const state = b64url(randomBytes(32));
  const nonce = b64url(randomBytes(32));
  const codeVerifier = b64url(randomBytes(48));
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + SSO_TEST_TTL_MS);
  const redirectUri = ctx.config.consoleSso.testRedirectUri;
  await ctx.db.transaction().execute(async (trx) => {
    // Old tests go as new ones start (no job needed: a handful per admin).
    await trx
      .deleteFrom('sso_test_sign_ins')
      .where('expires_at', '<', new Date(now.getTime() - SSO_TEST_TTL_MS))
      .execute();
    await trx
      .insertInto('sso_test_sign_ins')
      .values({
        state_hash: sha256(state),
        organisation_id: organisationId,
        user_id: caller.userId,
        issuer: provider.issuer,
        nonce,
        code_verifier: codeVerifier,
        redirect_uri: redirectUri,
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
  });
  const url = new URL(discovery.authorization_endpoint!);
  url.search = new URLSearchParams({
    ...Object.fromEntries(url.searchParams),
    response_type: 'code',
    client_id: provider.client_id,
    redirect_uri: redirectUri,
    scope: provider.scopes.join(' '),
    state,
    nonce,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
    // A test should show the provider's sign-in page, not reuse whoever is signed in there.
    prompt: 'login',
  }).toString();
  return { authorizationUrl: url.toString(), state, redirectUri, expiresAt: expiresAt.toISOString() };
}

export interface TestSignInResult {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
  /** The traits our sign-in would take, through the provider's claim mapping. */
  mapped: {
    email: string | null;
    emailVerified: boolean | null;
    firstName: string | null;
    lastName: string | null;
  };
  /** The address's domain is one of the organisation's (else SSO would refuse the person). */
  domainMatches: boolean;
}

/** Spends the state (first use only, only by the admin who started it), then exchanges the code. */
export async function completeTestSignIn(
  ctx: UsersContext,
  caller: ConsoleCaller,
  organisationId: string,
  input: { state: string; code?: string | undefined; error?: string | undefined },
): Promise<TestSignInResult> {
  const now = ctx.clock.now();
  const started = await ctx.db
    .updateTable('sso_test_sign_ins')
    .set({ used_at: now })
    .where('state_hash', '=', sha256(input.state))
    .where('organisation_id', '=', organisationId)
    .where('user_id', '=', caller.userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  if (!started) {
    throw new AppError(
      'SSO_TEST_STATE_INVALID',
      'This test sign-in is unknown, has expired or was already used. Start a new one.',
    );
  }
  if (input.error !== undefined) throw testFailed(`The provider answered with the error ${input.error}.`);
  if (input.code === undefined) throw testFailed('The provider answered with no code.');
  const provider = await findProviderByOrganisation(ctx.db, organisationId);
  if (!provider || provider.protocol !== 'oidc' || provider.issuer !== started.issuer) {
    throw testFailed('The provider changed since this test sign-in started. Start a new one.');
  }
  const discovery = await discoveryOrFail(ctx, provider.issuer);
  const secret = ctx.secretBox.open(provider.client_secret_enc, provider.provider_id);
  let token: { status: number; body: unknown };
  try {
    token = await fetchJson(discovery.token_endpoint!, ctx.config.consoleSso, {
      form: new URLSearchParams({
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: started.redirect_uri,
        code_verifier: started.code_verifier,
      }),
      headers: {
        authorization: `Basic ${Buffer.from(
          `${encodeURIComponent(provider.client_id)}:${encodeURIComponent(secret)}`,
        ).toString('base64')}`,
      },
    });
  } catch (error) {
    throw testFailed(
      `The token endpoint could not be used (${error instanceof OutboundError ? error.reason : 'unreachable'}).`,
    );
  }
  const body = token.body as { id_token?: unknown; error?: unknown } | null;
  if (token.status !== 200 || typeof body?.id_token !== 'string') {
    const error = typeof body?.error === 'string' ? body.error.slice(0, 64) : `HTTP ${token.status}`;
    throw testFailed(`The token endpoint refused the code (${error}).`);
  }
  const payload = await verifyIdToken(ctx, body.id_token, discovery, provider.client_id, started);
  const organisation = await findOrganisation(ctx.db, organisationId);
  const mapping = provider.claim_mapping;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const email = text(payload[mapping.email])?.toLowerCase() ?? null;
  const verified = payload[mapping.emailVerified];
  return {
    issuer: String(payload.iss),
    subject: String(payload.sub),
    claims: payload,
    mapped: {
      email,
      emailVerified: typeof verified === 'boolean' ? verified : null,
      firstName: text(payload[mapping.firstName]),
      lastName: text(payload[mapping.lastName]),
    },
    domainMatches:
      email !== null && (organisation?.domains ?? []).includes(email.slice(email.lastIndexOf('@') + 1)),
  };
}

async function verifyIdToken(
  ctx: UsersContext,
  idToken: string,
  discovery: Discovery,
  clientId: string,
  started: { issuer: string; nonce: string },
): Promise<JWTPayload> {
  if (!discovery.jwks_uri) throw testFailed('The discovery document names no JWKS.');
  let jwks;
  try {
    jwks = await fetchJwks(discovery.jwks_uri, ctx.config.consoleSso);
  } catch (error) {
    throw testFailed(
      `The provider's keys could not be read (${error instanceof OutboundError ? error.reason : 'unreachable'}).`,
    );
  }
  try {
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(jwks as never), {
      issuer: started.issuer,
      audience: clientId,
      algorithms: [...SUPPORTED_ID_TOKEN_ALGS],
      currentDate: ctx.clock.now(),
      clockTolerance: 60,
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    if (payload.nonce !== started.nonce) throw new Error('nonce');
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== clientId) {
      throw new Error('azp');
    }
    return payload;
  } catch (error) {
    const reason =
      error instanceof Error && 'claim' in error
        ? `${String((error as { claim: unknown }).claim)} claim`
        : error instanceof Error && (error.message === 'nonce' || error.message === 'azp')
          ? `${error.message} claim`
          : 'signature';
    throw testFailed(`The ID token was refused: its ${reason} is not what this provider must send.`);
  }
}

/** Test sign-in is an OIDC round trip; a SAML provider is checked by Test connection and a real sign-in. */
function samlHasNoTestSignIn(): AppError {
  return new AppError(
    'SSO_TEST_FAILED',
    'Test sign-in is for OpenID Connect providers. For SAML, use Test connection, then sign in through your identity provider.',
  );
}
