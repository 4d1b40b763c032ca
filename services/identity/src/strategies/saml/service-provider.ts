import { randomUUID } from 'node:crypto';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { Clock } from '@acme/db/clock';
import type { Config } from '../../config.ts';
import type { SamlProvider } from '../oidc/provider-directory.ts';

// The identity service as a SAML 2.0 service provider of an organisation's IdP, on @node-saml/node-saml:
// signed HTTP-Redirect AuthnRequests, and the ACS's checks. node-saml checks the XML signatures
// (against the provider's stored certificates only), decrypts encrypted assertions, and checks
// InResponseTo, NotBefore/NotOnOrAfter (on the service clock, with the configured skew) and the
// audience. Here we add what it leaves to its caller: the Destination and Recipient, the assertion's
// Issuer, and the assertion id (single use, in saml-login.ts).

export const SAML_METADATA_PATH = '/self-service/methods/saml/metadata/:provider';
export const SAML_ACS_PATH = '/self-service/methods/saml/acs/:provider';
export const SAML_FINISH_PATH = '/self-service/methods/saml/finish/:provider';

/** Our entity id for a provider: the URL of our metadata for it. */
const spEntityId = (config: Config, provider: string) =>
  `${config.publicUrl}/self-service/methods/saml/metadata/${encodeURIComponent(provider)}`;
const acsUrl = (config: Config, provider: string) =>
  `${config.publicUrl}/self-service/methods/saml/acs/${encodeURIComponent(provider)}`;
export const finishUrl = (config: Config, provider: string, flowId: string) =>
  `${config.publicUrl}/self-service/methods/saml/finish/${encodeURIComponent(provider)}?flow=${encodeURIComponent(flowId)}`;

/** Why the ACS refused an answer; each has a flow message (saml-login.ts) and names the security event. */
export type SamlFailure =
  | 'malformed' // not base64 XML, or no Response
  | 'status' // the IdP answered an error status (the person cancelled, or was refused)
  | 'signature' // no valid signature over the assertion by a stored certificate (incl. wrapping)
  | 'in_response_to' // not an answer to this flow's AuthnRequest (or unsolicited)
  | 'expired' // outside NotBefore/NotOnOrAfter (with skew)
  | 'audience' // not for our entity id
  | 'destination' // not sent to our ACS
  | 'issuer'; // the assertion's Issuer is not the provider's entity id

export class SamlValidationError extends Error {
  readonly failure: SamlFailure;
  constructor(failure: SamlFailure, detail?: string) {
    super(`saml: ${failure}${detail ? ` (${detail})` : ''}`);
    this.failure = failure;
  }
}

/** What a valid assertion says. */
export interface SamlAssertion {
  assertionId: string;
  /** The AuthnRequest this answers (absent for an IdP-initiated answer). */
  inResponseTo: string | undefined;
  /** When the assertion stops being valid (its id stays spent until then). */
  notOnOrAfter: Date;
  nameId: string;
  attributes: Record<string, string | string[]>;
}

const NS_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

/**
 * node-saml reads the system time; ours is the service clock, so tests can stand at the skew
 * boundaries. The one method that compares times is given the clock's reading.
 */
class ClockedSaml extends SAML {
  readonly now: () => number;
  constructor(options: ConstructorParameters<typeof SAML>[0], now: () => number) {
    super(options);
    this.now = now;
  }
  protected override checkTimestampsValidityError(
    _nowMs: number,
    notBefore: string,
    notOnOrAfter: string,
    maxTimeLimitMs?: number,
  ): Error | null {
    return super.checkTimestampsValidityError(this.now(), notBefore, notOnOrAfter, maxTimeLimitMs);
  }
}

/** A cache that knows only the request ids sent for the flow named by RelayState. */
function flowRequests(expected: readonly string[]): CacheProvider {
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (expected.includes(key) ? new Date().toISOString() : null),
    removeAsync: async () => null,
  };
}

function baseOptions(config: Config, provider: SamlProvider) {
  return {
    issuer: spEntityId(config, provider.provider),
    callbackUrl: acsUrl(config, provider.provider),
    idpCert: provider.saml.certificates,
    entryPoint: provider.saml.ssoUrl,
    privateKey: config.saml.signingKey,
    publicCert: config.saml.signingCerts[0]!,
    decryptionPvk: config.saml.encryptionKeys[0]!,
    signatureAlgorithm: 'sha256' as const,
    digestAlgorithm: 'sha256',
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    // Asking for a password context would stop an IdP from using its own MFA.
    disableRequestedAuthnContext: true,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    audience: spEntityId(config, provider.provider),
    acceptedClockSkewMs: config.saml.clockSkewMs,
  };
}

/** A signed HTTP-Redirect AuthnRequest; `requestId` is what the answer's InResponseTo must be. */
export async function authnRequest(
  config: Config,
  provider: SamlProvider,
  relayState: string,
): Promise<{ url: string; requestId: string }> {
  const requestId = `_${randomUUID().replaceAll('-', '')}`;
  const saml = new SAML({ ...baseOptions(config, provider), generateUniqueId: () => requestId });
  const url = await saml.getAuthorizeUrlAsync(relayState, undefined, {});
  return { url, requestId };
}

/** Our SP metadata for one provider: signing and encryption certificates, signed requests, signed assertions. */
export function spMetadata(config: Config, provider: string): string {
  const saml = new SAML({
    issuer: spEntityId(config, provider),
    callbackUrl: acsUrl(config, provider),
    idpCert: 'unused',
    privateKey: config.saml.signingKey,
    publicCert: config.saml.signingCerts[0]!,
    decryptionPvk: config.saml.encryptionKeys[0]!,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    wantAssertionsSigned: true,
  });
  const [current, ...others] = config.saml.encryptionCerts;
  const xml = saml.generateServiceProviderMetadata(current!, [...config.saml.signingCerts]);
  return withEncryptionCertificates(xml, others);
}

/**
 * node-saml publishes one encryption certificate; during a rotation every listed one is published
 * (each in its own KeyDescriptor, after the current one's), so an IdP may encrypt to any of them.
 */
function withEncryptionCertificates(xml: string, certs: readonly string[]): string {
  if (certs.length === 0) return xml;
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const current = Array.from(doc.getElementsByTagName('KeyDescriptor')).find(
    (k) => k.getAttribute('use') === 'encryption',
  );
  if (!current) return xml;
  let after = current;
  for (const cert of certs) {
    const copy = current.cloneNode(true) as typeof current;
    const body = copy.getElementsByTagName('ds:X509Certificate')[0]!;
    body.textContent = cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    after.parentNode!.insertBefore(copy, after.nextSibling);
    after = copy;
  }
  return new XMLSerializer().serializeToString(doc);
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * node-saml's validation with each configured decryption key in turn (IDENTITY_SAML_ENCRYPTION_KEY
 * being rotated: an IdP may still encrypt to the previous certificate). The first key that validates
 * wins; when none does, the refusal is the one under the first key (a response that fails for any
 * other reason fails the same way under each).
 */
async function validateUnderEachKey(
  config: Config,
  provider: SamlProvider,
  samlResponse: string,
  requestIds: readonly string[],
  unsolicited: boolean,
  clock: Clock,
): Promise<Profile | null> {
  const keys = config.saml.encryptionKeys;
  let first: unknown;
  for (let i = 0; i < keys.length; i++) {
    const saml = new ClockedSaml(
      {
        ...baseOptions(config, provider),
        decryptionPvk: keys[i]!,
        validateInResponseTo: unsolicited ? ValidateInResponseTo.never : ValidateInResponseTo.always,
        cacheProvider: flowRequests(requestIds),
        requestIdExpirationPeriodMs: 24 * 3600_000,
      },
      () => clock.now().getTime(),
    );
    try {
      return (await saml.validatePostResponseAsync({ SAMLResponse: samlResponse })).profile;
    } catch (error) {
      first ??= error;
    }
  }
  throw new SamlValidationError(classify(first), (first as Error).message);
}

/**
 * Validates a SAMLResponse posted to the ACS. `requestIds` are the open AuthnRequest ids stored with
 * the flow; the answer's InResponseTo must be one of them. An answer without InResponseTo
 * (IdP-initiated) only when the provider allows IdP-initiated sign-in.
 */
export async function validateResponse(
  config: Config,
  provider: SamlProvider,
  samlResponse: string,
  requestIds: readonly string[],
  clock: Clock,
): Promise<SamlAssertion> {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const root = parseRoot(xml);
  if (!root || root.namespaceURI !== NS_PROTOCOL || root.localName !== 'Response')
    throw new SamlValidationError('malformed');
  // The Destination the IdP wrote must be our ACS for this provider (a response meant for another SP
  // or another of our providers is refused).
  const destination = root.getAttribute('Destination');
  if (destination !== acsUrl(config, provider.provider)) throw new SamlValidationError('destination');
  const inResponseTo = root.getAttribute('InResponseTo') || undefined;
  const unsolicited = inResponseTo === undefined;
  if (unsolicited ? !provider.saml.allowIdpInitiated : !requestIds.includes(inResponseTo))
    throw new SamlValidationError('in_response_to');

  const profile = await validateUnderEachKey(config, provider, samlResponse, requestIds, unsolicited, clock);
  if (!profile) throw new SamlValidationError('malformed');
  if (profile.issuer !== provider.saml.idpEntityId) throw new SamlValidationError('issuer');
  const assertion = (profile.getAssertion?.() ?? {}) as {
    Assertion?: {
      $?: { ID?: string };
      Conditions?: { $?: { NotOnOrAfter?: string } }[];
      Subject?: { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { Recipient?: string } }[] }[] }[];
    };
  };
  const assertionId = text(assertion.Assertion?.$?.ID);
  if (!assertionId) throw new SamlValidationError('malformed');
  // The bearer confirmation's Recipient is signed (the Destination above may not be): our ACS too.
  for (const c of assertion.Assertion?.Subject?.[0]?.SubjectConfirmation ?? []) {
    const recipient = text(c.SubjectConfirmationData?.[0]?.$?.Recipient);
    if (recipient !== undefined && recipient !== acsUrl(config, provider.provider))
      throw new SamlValidationError('destination');
  }
  const until = text(assertion.Assertion?.Conditions?.[0]?.$?.NotOnOrAfter);
  const notOnOrAfter =
    until && !Number.isNaN(Date.parse(until))
      ? new Date(Date.parse(until) + config.saml.clockSkewMs)
      : new Date(clock.now().getTime() + 24 * 3600_000);
  // Own data properties only (an attribute named `__proto__` stays a name, not a prototype).
  const attributes: Record<string, string | string[]> = Object.fromEntries(
    Object.entries((profile.attributes ?? {}) as Record<string, unknown>).flatMap(
      ([k, v]): [string, string | string[]][] =>
        typeof v === 'string'
          ? [[k, v]]
          : Array.isArray(v)
            ? [[k, v.filter((x): x is string => typeof x === 'string')]]
            : [],
    ),
  );
  return { assertionId, inResponseTo, notOnOrAfter, nameId: profile.nameID ?? '', attributes };
}

function parseRoot(xml: string): Element | undefined {
  if (!xml.trimStart().startsWith('<')) return undefined;
  let failed = false;
  const doc = new DOMParser({
    errorHandler: {
      warning: () => undefined,
      error: () => {
        failed = true;
      },
      fatalError: () => {
        failed = true;
      },
    },
  }).parseFromString(xml, 'text/xml');
  return failed ? undefined : (doc.documentElement ?? undefined);
}

function classify(error: unknown): SamlFailure {
  const message = error instanceof Error ? error.message : '';
  if (error instanceof Error && error.name === 'SamlStatusError') return 'status';
  if (/InResponseTo/i.test(message)) return 'in_response_to';
  if (/SAML assertion (expired|not yet valid)|clock skew|subject confirmation/i.test(message))
    return 'expired';
  if (/audience/i.test(message)) return 'audience';
  if (/signature|multiple assertions|Cannot obtain assertion/i.test(message)) return 'signature';
  return 'malformed';
}
