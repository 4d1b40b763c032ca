import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  DEV_SP_ENCRYPTION_CERT,
  DEV_SP_ENCRYPTION_KEY,
  DEV_SP_SIGNING_CERT,
  DEV_SP_SIGNING_KEY,
} from '../../src/strategies/saml/dev-keys.ts';

/** The identity service's secret settings: comma-separated lists, each also readable from X_FILE. */
const A = 'a-secret-value-of-at-least-32-chars-000';
const B = 'b-secret-value-of-at-least-32-chars-111';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return String((error as Error).message) + JSON.stringify((error as { issues?: unknown }).issues ?? '');
  }
  throw new Error('the configuration was accepted');
};

describe('identity secret settings', () => {
  it.each(['IDENTITY_CODE_SECRET', 'IDENTITY_ADMIN_KEY', 'OAUTH2_ADMIN_KEY', 'USERS_ADMIN_KEY'])(
    '%s: a list; an empty entry, a duplicate or a short entry refuses to start, naming it without the value',
    (name) => {
      for (const bad of [`${A},`, `${A},${A}`, `${A},short-one`]) {
        const text = refusal({ [name]: bad });
        expect(text).toContain(name);
        expect(text).not.toContain('a-secret-value');
        expect(text).not.toContain('short-one');
      }
    },
  );

  it('the first code secret stores codes, every listed one still matches; callers send the first admin key', () => {
    const config = loadConfig({
      IDENTITY_CODE_SECRET: `${B},${A}`,
      USERS_ADMIN_KEY: `${B}, ${A}`,
      IDENTITY_ADMIN_KEY: `${A},${B}`,
    });
    expect(config.codeSecrets).toEqual([B, A]);
    expect(config.usersAdminKey).toBe(B);
    expect(config.admin.keys).toEqual([A, B]);
  });

  it('the SAML keys are PEM lists: the first signs, every decryption key is kept', () => {
    const config = loadConfig({
      IDENTITY_SAML_SIGNING_KEY: `${DEV_SP_SIGNING_KEY.replaceAll('\n', '\\n')},${DEV_SP_ENCRYPTION_KEY}`,
      IDENTITY_SAML_ENCRYPTION_KEY: `${DEV_SP_ENCRYPTION_KEY},${DEV_SP_SIGNING_KEY}`,
      // Each key's certificate, at the same place in its list.
      IDENTITY_SAML_SIGNING_CERT: `${DEV_SP_SIGNING_CERT},${DEV_SP_ENCRYPTION_CERT}`,
      IDENTITY_SAML_ENCRYPTION_CERT: `${DEV_SP_ENCRYPTION_CERT},${DEV_SP_SIGNING_CERT}`,
    });
    expect(config.saml.signingKey).toBe(DEV_SP_SIGNING_KEY.trim());
    expect(config.saml.encryptionKeys).toEqual([DEV_SP_ENCRYPTION_KEY.trim(), DEV_SP_SIGNING_KEY.trim()]);
    const text = refusal({
      IDENTITY_SAML_ENCRYPTION_KEY: `${DEV_SP_ENCRYPTION_KEY},not a key but long enough to pass the length check of sixty-four`,
      IDENTITY_SAML_ENCRYPTION_CERT: `${DEV_SP_ENCRYPTION_CERT},${DEV_SP_SIGNING_CERT}`,
    });
    // Refused for the key that is no key, not for a missing certificate.
    expect(text).not.toContain('_CERT must list');
    expect(text).toContain('IDENTITY_SAML_ENCRYPTION_KEY');
    expect(text).not.toContain('not a key');
  });

  it('every secret setting can be read from X_FILE; a missing file refuses to start naming its path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-secrets-'));
    writeFileSync(join(dir, 'code'), `${A},${B}\n`);
    writeFileSync(join(dir, 'admin'), `${B}\n`);
    const config = loadConfig({
      IDENTITY_CODE_SECRET_FILE: join(dir, 'code'),
      IDENTITY_ADMIN_KEY_FILE: join(dir, 'admin'),
    });
    expect(config.codeSecrets).toEqual([A, B]);
    expect(config.admin.keys).toEqual([B]);
    expect(() => loadConfig({ USERS_ADMIN_KEY_FILE: join(dir, 'absent') })).toThrow(
      `USERS_ADMIN_KEY_FILE: cannot read ${join(dir, 'absent')}`,
    );
    expect(() =>
      loadConfig({ IDENTITY_CODE_SECRET: A, IDENTITY_CODE_SECRET_FILE: join(dir, 'code') }),
    ).toThrow(/both set/);
  });
});
