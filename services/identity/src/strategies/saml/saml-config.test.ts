import { describe, expect, it } from 'vitest';
import { SAML_IDP_CERT, SAML_IDP_KEY, SAML_IDP_NEXT_CERT, SAML_IDP_NEXT_KEY } from '@acme/dev';
import { loadConfig } from '../../config.ts';
import { DEV_SP_ENCRYPTION_CERT, DEV_SP_ENCRYPTION_KEY, DEV_SP_SIGNING_KEY } from './dev-keys.ts';

// The SAML SP's keys are configuration, parsed once: the public development pair is refused in
// production while saml is an enabled method; PEM given on one line (`\n` escapes) is accepted.

const production = {
  NODE_ENV: 'production',
  IDENTITY_CODE_SECRET: 'a-production-code-secret-of-32-chars-0000',
};

describe('SAML SP configuration', () => {
  it('refuses the development keys in production while saml is enabled', () => {
    expect(() => loadConfig(production)).toThrow(/IDENTITY_SAML_SIGNING_KEY/);
  });

  it('lets production start without SAML when saml is not an enabled method', () => {
    const config = loadConfig({
      ...production,
      IDENTITY_METHODS: 'password,totp,lookup_secret,code,profile,oidc',
    });
    expect(config.methods).not.toContain('saml');
  });

  it('takes production keys, also as one-line PEM with \\n escapes', () => {
    const signing = SAML_IDP_NEXT_KEY;
    const config = loadConfig({
      ...production,
      IDENTITY_SAML_SIGNING_KEY: signing.trim().replaceAll('\n', '\\n'),
      IDENTITY_SAML_SIGNING_CERT: SAML_IDP_NEXT_CERT.trim().replaceAll('\n', '\\n'),
      IDENTITY_SAML_ENCRYPTION_KEY: SAML_IDP_KEY,
      IDENTITY_SAML_ENCRYPTION_CERT: SAML_IDP_CERT,
    });
    expect(config.saml.signingKey).toBe(signing.trim());
    expect(config.saml.signingKey).not.toBe(DEV_SP_SIGNING_KEY);
    expect(config.saml.clockSkewMs).toBe(120_000);
    expect(config.saml.bodyLimit).toBe(262_144);
  });

  it('takes key and certificate lists; each certificate must be its key’s, at the same place', () => {
    const rotating = {
      IDENTITY_SAML_ENCRYPTION_KEY: `${SAML_IDP_NEXT_KEY},${DEV_SP_ENCRYPTION_KEY}`,
      IDENTITY_SAML_ENCRYPTION_CERT: `${SAML_IDP_NEXT_CERT},${DEV_SP_ENCRYPTION_CERT}`,
    };
    expect(loadConfig(rotating).saml.encryptionCerts).toHaveLength(2);
    for (const cert of [
      DEV_SP_ENCRYPTION_CERT, // one certificate for two keys
      `${DEV_SP_ENCRYPTION_CERT},${SAML_IDP_NEXT_CERT}`, // the right ones, in the wrong order
      `${SAML_IDP_NEXT_CERT},${SAML_IDP_CERT}`, // another key's certificate
    ]) {
      const refused = () => loadConfig({ ...rotating, IDENTITY_SAML_ENCRYPTION_CERT: cert });
      expect(refused).toThrow(/IDENTITY_SAML_ENCRYPTION_CERT must list the certificate of each/);
      expect(refused).not.toThrow(/PRIVATE KEY|BEGIN/);
    }
  });

  it('refuses a key that is not PEM', () => {
    expect(() => loadConfig({ IDENTITY_SAML_SIGNING_KEY: 'not a key' })).toThrow(/PEM/);
  });
});
