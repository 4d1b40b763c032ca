import type { ConsoleOidcInput, ConsoleSamlInput } from '@acme/users-contract/console-sso';
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
  { ok: true; body: ConsoleOidcInput } | { ok: false; field: SsoFormField; error: string };

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

// SAML: the IdP's metadata from a URL (refreshed daily by the service) or pasted. The service parses
// it; here only what can be told without it: present, a web URL, XML-looking, at most 1 MiB.

const SAML_METADATA_MAX_BYTES = 1024 * 1024;

export interface SamlFormFields {
  source: 'url' | 'xml';
  metadataUrl: string;
  metadataXml: string;
  jit: boolean;
  enforce: boolean;
}

export type SamlFormField = 'metadataUrl' | 'metadataXml';

export type SamlFormDecision =
  { ok: true; body: ConsoleSamlInput } | { ok: false; field: SamlFormField; error: string };

function metadataUrlError(raw: string): string | null {
  if (raw.length === 0) return t.saml.urlRequired;
  if (raw.length > 2000) return t.tooLong(2000);
  try {
    const url = new URL(raw);
    const web = url.protocol === 'https:' || url.protocol === 'http:';
    return web && !url.username && !url.password && !url.hash ? null : t.saml.urlInvalid;
  } catch {
    return t.saml.urlInvalid;
  }
}

export function decideSamlForm(fields: SamlFormFields): SamlFormDecision {
  const switches = { jit: fields.jit, enforce: fields.enforce };
  if (fields.source === 'url') {
    const metadataUrl = fields.metadataUrl.trim();
    const problem = metadataUrlError(metadataUrl);
    if (problem) return { ok: false, field: 'metadataUrl', error: problem };
    return { ok: true, body: { protocol: 'saml', metadataUrl, ...switches } };
  }
  const metadataXml = fields.metadataXml.trim();
  if (metadataXml.length === 0) return { ok: false, field: 'metadataXml', error: t.saml.xmlRequired };
  if (new TextEncoder().encode(metadataXml).length > SAML_METADATA_MAX_BYTES) {
    return { ok: false, field: 'metadataXml', error: t.saml.xmlTooLarge };
  }
  if (!metadataXml.startsWith('<')) return { ok: false, field: 'metadataXml', error: t.saml.xmlInvalid };
  return { ok: true, body: { protocol: 'saml', metadataXml, ...switches } };
}
