import type { ConsoleSsoInput } from '@acme/users-contract/console-sso';
import { consoleCopy } from './copy.ts';

// What the Single sign-on form sends, or which field is wrong. Pure: the fields as typed, checked
// as the user service checks them. The secret is required only for a first provider: left empty
// later, the stored one stays.

const t = consoleCopy.sso;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/;
const MAX_SCOPES = 20;

export interface SsoFormFields {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  jit: boolean;
  enforce: boolean;
}

export type SsoFormField = 'issuer' | 'clientId' | 'clientSecret' | 'scopes';

export type SsoFormDecision =
  { ok: true; body: ConsoleSsoInput } | { ok: false; field: SsoFormField; error: string };

function issuerError(raw: string): string | null {
  if (raw.length === 0) return t.issuerRequired;
  if (raw.length > 500) return t.tooLong(500);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return t.issuerInvalid;
  }
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  return web && !url.search && !url.hash && !url.username && !url.password ? null : t.issuerInvalid;
}

export function decideSsoForm(fields: SsoFormFields, hasProvider: boolean): SsoFormDecision {
  const issuer = fields.issuer.trim();
  const issuerProblem = issuerError(issuer);
  if (issuerProblem) return { ok: false, field: 'issuer', error: issuerProblem };
  const clientId = fields.clientId.trim();
  if (clientId.length === 0) return { ok: false, field: 'clientId', error: t.clientIdRequired };
  if (clientId.length > 500) return { ok: false, field: 'clientId', error: t.tooLong(500) };
  if (fields.clientSecret.length === 0 && !hasProvider) {
    return { ok: false, field: 'clientSecret', error: t.secretRequired };
  }
  if (fields.clientSecret.length > 2000) return { ok: false, field: 'clientSecret', error: t.tooLong(2000) };
  const scopes = [...new Set(fields.scopes.split(/\s+/).filter((s) => s.length > 0))];
  const bad = scopes.find((s) => !SCOPE.test(s));
  if (bad !== undefined) return { ok: false, field: 'scopes', error: t.scopeInvalid(bad) };
  if (scopes.length > MAX_SCOPES) return { ok: false, field: 'scopes', error: t.tooManyScopes(MAX_SCOPES) };
  if (!scopes.includes('openid')) return { ok: false, field: 'scopes', error: t.scopesOpenid };
  return {
    ok: true,
    body: {
      issuer,
      clientId,
      ...(fields.clientSecret.length > 0 ? { clientSecret: fields.clientSecret } : {}),
      scopes,
      jit: fields.jit,
      enforce: fields.enforce,
    },
  };
}
