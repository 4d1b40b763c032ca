import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { DEV_SP_ENCRYPTION_CERT, DEV_SP_SIGNING_KEY } from './dev-keys.ts';

// The SAML SP's keys are configuration, parsed once: the public development pair is refused in
// production while saml is an enabled method; PEM given on one line (`\n` escapes) is accepted.

const production = {
  NODE_ENV: 'production',
  IDENTITY_CODE_SECRET: 'a-production-code-secret-of-32-chars-0000',
};

const pem = (): string =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;

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
    const signing = pem();
    const config = loadConfig({
      ...production,
      IDENTITY_SAML_SIGNING_KEY: signing.trim().replaceAll('\n', '\\n'),
      IDENTITY_SAML_SIGNING_CERT: DEV_SP_ENCRYPTION_CERT,
      IDENTITY_SAML_ENCRYPTION_KEY: pem(),
      IDENTITY_SAML_ENCRYPTION_CERT: DEV_SP_ENCRYPTION_CERT,
    });
    expect(config.saml.signingKey).toBe(signing.trim());
    expect(config.saml.signingKey).not.toBe(DEV_SP_SIGNING_KEY);
    expect(config.saml.clockSkewMs).toBe(120_000);
    expect(config.saml.bodyLimit).toBe(262_144);
  });

  it('refuses a key that is not PEM', () => {
    expect(() => loadConfig({ IDENTITY_SAML_SIGNING_KEY: 'not a key' })).toThrow(/PEM/);
  });
});
