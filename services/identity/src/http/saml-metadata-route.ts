import { openApi } from '@acme/service-kit/openapi';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { IdentityError } from '../errors/identity-error.ts';

/** The ACS's paths: a cross-site POST by design (an IdP page may send it with `Origin: null`). */
export const isSamlAcsPath = (path: string) => /^\/self-service\/methods\/saml\/acs\/[^/]+$/.test(path);

/** What the metadata route needs from the SAML method, handed in by the composition root. */
export interface SamlMetadataSource {
  /** The route's path, with a `:provider` parameter (the URL is also our entity id). */
  path: string;
  /** The SSO provider with this id, or undefined; throws when the directory cannot be reached. */
  provider(id: string): Promise<{ protocol: string; provider: string } | undefined>;
  /** Our service provider's metadata document for one SAML provider. */
  metadata(provider: string): string;
}

/**
 * Our SP metadata for one SAML provider, at the URL that is also our entity id for it: what an
 * organisation's IT admin gives their IdP (ADFS, Okta, Entra). Unknown or OIDC providers: 404.
 */
export function registerSamlMetadataRoute(app: FastifyInstance, source: SamlMetadataSource): void {
  const doc = openApi({
    summary: "Our service provider's SAML metadata for one provider (also our entity id for it).",
    params: z.object({ provider: z.string() }),
    responses: { 200: { content: { 'application/samlmetadata+xml': z.string() } } },
  });
  app.get(source.path, doc, async (req, reply) => {
    const id = ((req.params as { provider?: string }).provider ?? '').slice(0, 100);
    let provider;
    try {
      provider = await source.provider(id);
    } catch {
      throw new IdentityError(503, { reason: 'The SSO provider directory could not be reached.' });
    }
    if (provider?.protocol !== 'saml')
      throw new IdentityError(404, { reason: 'No SAML single sign-on provider has this id.' });
    return reply
      .header('content-type', 'application/samlmetadata+xml; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(source.metadata(provider.provider));
  });
}
