import { z } from 'zod';
import { ACCESS_TOKEN_RESOURCE, clientById, type OAuth2Runtime } from '../context.ts';
import { OAuth2Error } from '../errors.ts';

/**
 * `POST /admin/oauth2/federated-tokens` (admin API, operator network only): an access token for a
 * user who signed in with a federated identity our user service has already verified (Microsoft
 * 365). Same keys, issuer, audience and claim shape as the tokens of the authorization-code flow:
 * a short-lived grant carries the consent session, so `ext` is the given `session.access_token`,
 * and introspection and userinfo treat the token like any other. No refresh token: the app
 * "refreshes" by signing in again with Microsoft.
 */

const JsonObject = z.record(z.string(), z.unknown());

export const FederatedTokenBody = z
  .object({
    subject: z.string().min(1).max(255),
    client_id: z.string().min(1).max(255),
    session: z.object({ access_token: JsonObject, id_token: JsonObject.optional() }).strict(),
  })
  .strict();

const SCOPE = 'openid';

export const FederatedTokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z.string(),
});

export async function issueFederatedToken(rt: OAuth2Runtime, rawBody: unknown) {
  const parsed = FederatedTokenBody.safeParse(rawBody);
  if (!parsed.success) {
    throw OAuth2Error.invalidRequest(
      'The request body must be {subject, client_id, session: {access_token}}.',
    );
  }
  const body = parsed.data;
  if (!clientById(rt.config, body.client_id)) {
    throw new OAuth2Error(400, 'invalid_client', 'The client is not registered.');
  }
  const client = await rt.provider.Client.find(body.client_id);
  if (!client) throw new OAuth2Error(400, 'invalid_client', 'The client is not registered.');

  const ttl = rt.config.ttl.accessToken;
  const { Grant, AccessToken, ResourceServer } = rt.provider;
  const grant = new Grant({ accountId: body.subject, clientId: client.clientId });
  // The grant lives as long as its one access token (BaseToken reads `expiresIn`).
  (grant as unknown as { expiresIn: number }).expiresIn = ttl;
  grant.addOIDCScope(SCOPE);
  grant.addResourceScope(ACCESS_TOKEN_RESOURCE, SCOPE);
  const grantId = await grant.save();
  await rt.claims.saveConsentSession(
    grantId,
    { access_token: body.session.access_token, id_token: body.session.id_token ?? {} },
    ttl,
  );

  const resourceServer = new ResourceServer(ACCESS_TOKEN_RESOURCE, {
    scope: SCOPE,
    audience: ACCESS_TOKEN_RESOURCE,
    accessTokenFormat: 'jwt',
    accessTokenTTL: ttl,
    jwt: { sign: { alg: rt.config.accessTokenAlg } },
  });
  const token = new AccessToken({
    accountId: body.subject,
    client,
    grantId,
    scope: SCOPE,
    resourceServer,
    expiresIn: ttl,
    gty: 'federated',
  });
  const accessToken = await token.save();
  return FederatedTokenSchema.parse({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ttl,
    scope: SCOPE,
  });
}
