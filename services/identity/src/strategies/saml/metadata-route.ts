import { openApi } from '@acme/service-kit/openapi';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { IdentityContext } from '../../context.ts';
import { IdentityError } from '../../errors/identity-error.ts';
import { oidcServices } from '../oidc/oidc-login.ts';
import { SAML_METADATA_PATH, spMetadata } from './service-provider.ts';

/** The ACS's paths: a cross-site POST by design (an IdP page may send it with `Origin: null`). */
export const isSamlAcsPath = (path: string) => /^\/self-service\/methods\/saml\/acs\/[^/]+$/.test(path);

/**
 * Our SP metadata for one SAML provider, at the URL that is also our entity id for it: what an
 * organisation's IT admin gives their IdP (ADFS, Okta, Entra). Unknown or OIDC providers: 404.
 */
export function registerSamlMetadataRoute(app: FastifyInstance, ctx: IdentityContext): void {
  if (!ctx.config.methods.includes('saml')) return;
  const doc = openApi({
    summary: "Our service provider's SAML metadata for one provider (also our entity id for it).",
    params: z.object({ provider: z.string() }),
    responses: { 200: { content: { 'application/samlmetadata+xml': z.string() } } },
  });
  app.get(SAML_METADATA_PATH, doc, async (req, reply) => {
    const id = ((req.params as { provider?: string }).provider ?? '').slice(0, 100);
    let provider;
    try {
      provider = await oidcServices(ctx).directory.get(id);
    } catch {
      throw new IdentityError(503, { reason: 'The SSO provider directory could not be reached.' });
    }
    if (provider?.protocol !== 'saml')
      throw new IdentityError(404, { reason: 'No SAML single sign-on provider has this id.' });
    return reply
      .header('content-type', 'application/samlmetadata+xml; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(spMetadata(ctx.config, provider.provider));
  });
}
