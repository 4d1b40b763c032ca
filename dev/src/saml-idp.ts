import { randomBytes, randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import formbody from '@fastify/formbody';
import * as samlify from 'samlify';
import * as xmllint from '@authenio/samlify-xmllint-wasm';
import { escapeHtml } from './html.ts';
import { SAML_IDP_CERT, SAML_IDP_KEY, SAML_IDP_WRONG_CERT, SAML_IDP_WRONG_KEY } from './saml-idp-keys.ts';

// A SAML 2.0 identity provider (think ADFS, or Okta/Entra in SAML mode) for development and tests, on
// samlify with its WebAssembly schema validator: metadata at `/metadata`, SSO by HTTP-Redirect at
// `/sso` (the AuthnRequest's signature is checked against the SP's metadata, fetched from its entity
// id, which is our metadata URL), a sign-in page, then an auto-submitting HTTP-POST to the SP's ACS.
// A switch sends a broken answer next (unsigned, wrong certificate, wrapped, expired, not yet valid,
// wrong audience, wrong destination, replayed, unsolicited): `POST /test/variant {"variant": …}` or `setVariant`.

samlify.setSchemaValidator(xmllint);

export const SAML_IDP_DEMO_PASSWORD = 'Initech-Demo-2026!';

export interface SamlIdpUser {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  groups?: string[];
}

export const SAML_IDP_DEMO_USERS: SamlIdpUser[] = [
  {
    email: 'milton@initech.test',
    password: SAML_IDP_DEMO_PASSWORD,
    firstName: 'Milton',
    lastName: 'Waddams',
    groups: ['Staplers', 'Basement'],
  },
  {
    email: 'peter@initech.test',
    password: SAML_IDP_DEMO_PASSWORD,
    firstName: 'Peter',
    lastName: 'Gibbons',
    groups: ['TPS Reports'],
  },
];

export const SAML_IDP_VARIANTS = [
  'valid',
  'unsigned',
  'wrong-certificate',
  'wrapped',
  'expired',
  'not-yet-valid',
  'wrong-audience',
  'wrong-destination',
  'replayed',
  'unsolicited',
] as const;
export type SamlIdpVariant = (typeof SAML_IDP_VARIANTS)[number];

type SpEncryptionCertificate = 'first' | 'last' | { pem: string };

export interface SamlIdpOptions {
  /** Port (4521); 0 picks a free one. */
  port?: number;
  host?: string;
  /** Base URL (`http://localhost:<port>`); the entity id is `<base>/metadata`. */
  baseUrl?: string;
  users?: SamlIdpUser[];
  /** Encrypts assertions to the SP's encryption certificate (default true, as banks ask). */
  encryptAssertions?: boolean;
  /** Time source of IssueInstant/NotBefore/NotOnOrAfter (tests give a fixed one). */
  now?: () => Date;
  /** Which SP metadata URLs may be fetched (default: any http(s) URL on localhost/127.0.0.1). */
  allowSpMetadata?: (url: URL) => boolean;
  /**
   * Which of the SP's published encryption certificates assertions are encrypted to: the first
   * (default), the last (an IdP that has not moved to the SP's new certificate yet), or a PEM
   * certificate it read earlier (one the SP has dropped since).
   */
  spEncryptionCertificate?: SpEncryptionCertificate;
}

/** The answer the IdP last posted (tests replay it). */
export interface SamlIdpAnswer {
  acs: string;
  samlResponse: string;
  relayState: string;
}

export interface SamlIdp {
  url: string;
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  /** The signing certificate (PEM) an SP stores. */
  certificate: string;
  /** The answer after the next sign-in is this variant (once; then valid again). */
  setVariant(variant: SamlIdpVariant): void;
  lastAnswer(): SamlIdpAnswer | undefined;
  close(): Promise<void>;
}

interface Pending {
  sp: samlify.ServiceProviderInstance;
  spMetadata: string;
  requestId: string;
  relayState: string;
}

const esc = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface AnswerValues {
  id: string;
  assertionId: string;
  issuer: string;
  destination: string;
  audience: string;
  inResponseTo: string;
  now: Date;
  notBefore: Date;
  notOnOrAfter: Date;
  user: SamlIdpUser;
}

/** The Response (its assertion still unsigned): samlify signs and encrypts it. */
function responseXml(v: AnswerValues): string {
  const attr = (name: string, values: string[]) =>
    `<saml:Attribute Name="${esc(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values
      .map((x) => `<saml:AttributeValue xsi:type="xs:string">${esc(x)}</saml:AttributeValue>`)
      .join('')}</saml:Attribute>`;
  const iso = (d: Date) => d.toISOString();
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${v.id}" Version="2.0" IssueInstant="${iso(v.now)}" Destination="${esc(v.destination)}" InResponseTo="${esc(v.inResponseTo)}">` +
    `<saml:Issuer>${esc(v.issuer)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="${v.assertionId}" Version="2.0" IssueInstant="${iso(v.now)}">` +
    `<saml:Issuer>${esc(v.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(v.user.email)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${iso(v.notOnOrAfter)}" Recipient="${esc(v.destination)}" InResponseTo="${esc(v.inResponseTo)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(v.notBefore)}" NotOnOrAfter="${iso(v.notOnOrAfter)}"><saml:AudienceRestriction><saml:Audience>${esc(v.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(v.now)}" SessionIndex="${v.assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attr('email', [v.user.email])}${attr('firstName', [v.user.firstName])}${attr('lastName', [v.user.lastName])}${attr('groups', v.user.groups ?? [])}</saml:AttributeStatement>` +
    `</saml:Assertion></samlp:Response>`
  );
}

/**
 * XML signature wrapping: the signed assertion is hidden in the Response's Extensions, and an unsigned
 * copy naming `victim` (with a new ID) takes its place. A verifier that checks "some signature is
 * valid" and then reads the first assertion signs the victim in.
 */
export function wrapSignedResponse(xml: string, victim: SamlIdpUser): string {
  const start = xml.indexOf('<saml:Assertion');
  const end = xml.indexOf('</saml:Assertion>') + '</saml:Assertion>'.length;
  const signed = xml.slice(start, end);
  const forged = signed
    .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '')
    .replace(/ ID="[^"]+"/, ` ID="_forged${randomBytes(8).toString('hex')}"`)
    .replace(/(<saml:NameID[^>]*>)[^<]*(<\/saml:NameID>)/, `$1${esc(victim.email)}$2`)
    .replace(/(<saml:Attribute Name="email"[^>]*><saml:AttributeValue[^>]*>)[^<]*/, `$1${esc(victim.email)}`);
  const withoutAssertion = xml.slice(0, start) + forged + xml.slice(end);
  return withoutAssertion.replace(
    '<samlp:Status>',
    `<samlp:Extensions>${signed}</samlp:Extensions><samlp:Status>`,
  );
}

const loopback = (url: URL) =>
  (url.protocol === 'http:' || url.protocol === 'https:') &&
  ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

interface Entities {
  idp: samlify.IdentityProviderInstance;
  /** The same key, never encrypting (the wrapped variant works on a readable assertion). */
  plain: samlify.IdentityProviderInstance;
  /** Another key under the same entity id (the wrong-certificate variant). */
  wrong: samlify.IdentityProviderInstance;
}

/** The IdP's state: set once its port is known, then the pending requests and the switch. */
interface IdpState {
  base: string;
  entityId: string;
  entities: Entities | undefined;
  users: SamlIdpUser[];
  now: () => Date;
  pending: Map<string, Pending>;
  variant: SamlIdpVariant;
  last: SamlIdpAnswer | undefined;
  spEncryptionCertificate: SpEncryptionCertificate;
}

const KEY_DESCRIPTOR = /<(?:md:)?KeyDescriptor use="(signing|encryption)"[\s\S]*?<\/(?:md:)?KeyDescriptor>/g;

/**
 * samlify reads one certificate per use; an SP rotating its keys publishes several. The SP's
 * metadata as samlify can read it: one signing certificate (each in turn, to check the request's
 * signature against every published one) and the encryption certificate this IdP encrypts to.
 */
function spMetadataVariants(metadata: string, encryptTo: SpEncryptionCertificate): string[] {
  const blocks = [...metadata.matchAll(KEY_DESCRIPTOR)];
  const signing = blocks.filter((b) => b[1] === 'signing').map((b) => b[0]);
  const encryption = blocks.filter((b) => b[1] === 'encryption').map((b) => b[0]);
  if (typeof encryptTo === 'object' && encryption[0]) {
    const body = encryptTo.pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const earlier = encryption[0].replace(/<ds:X509Certificate>[^<]*</, `<ds:X509Certificate>${body}<`);
    return spMetadataVariants(metadata.replace(encryption[0], earlier), 'first');
  }
  if (signing.length <= 1 && encryption.length <= 1) return [metadata];
  const chosen = encryptTo === 'first' ? encryption[0] : encryption[encryption.length - 1];
  return (signing.length ? signing : ['']).map((keep) => {
    let seenChosen = false;
    return metadata.replace(KEY_DESCRIPTOR, (block) => {
      if (block === keep) return block;
      if (block === chosen && !seenChosen) {
        seenChosen = true;
        return block;
      }
      return '';
    });
  });
}

function entitiesFor(base: string, entityId: string, encrypt: boolean): Entities {
  const idpWith = (key: string, cert: string, encrypted: boolean) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: key,
      signingCert: cert,
      wantAuthnRequestsSigned: true,
      isAssertionEncrypted: encrypted,
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
      singleSignOnService: [
        { Binding: samlify.Constants.namespace.binding.redirect, Location: `${base}/sso` },
      ],
    });
  return {
    idp: idpWith(SAML_IDP_KEY, SAML_IDP_CERT, encrypt),
    plain: idpWith(SAML_IDP_KEY, SAML_IDP_CERT, false),
    wrong: idpWith(SAML_IDP_WRONG_KEY, SAML_IDP_WRONG_CERT, encrypt),
  };
}

function page(reply: FastifyReply, title: string, body: string, extraCsp = '') {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'${extraCsp}`,
    )
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
        `<style>body{font-family:system-ui,sans-serif;background:#f4f4f4;margin:0}main{max-width:380px;margin:64px auto;background:#fff;border:1px solid #ccc;border-radius:6px;padding:24px}label{display:block;margin:12px 0 4px}input{width:100%;box-sizing:border-box;padding:6px}button{margin-top:16px;padding:6px 16px}</style>` +
        `</head><body><main>${body}</main></body></html>`,
    );
}

const loginPage = (reply: FastifyReply, id: string, error?: string) =>
  page(
    reply,
    'Sign in to Initech',
    `<h1>Sign in to Initech</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}` +
      `<form method="post" action="/login"><input type="hidden" name="pending" value="${escapeHtml(id)}">` +
      `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit">Sign in</button></form>`,
    "; form-action 'self'",
  );

/** The page that posts the answer to the SP's ACS at once (a button without script). */
function postPage(reply: FastifyReply, answer: SamlIdpAnswer) {
  const nonce = randomBytes(16).toString('base64');
  // As some IdPs do: with this policy, browsers send the cross-site POST with `Origin: null`.
  reply.header('referrer-policy', 'no-referrer');
  return page(
    reply,
    'Signing you in…',
    `<p>Signing you in…</p><form id="saml" method="post" action="${escapeHtml(answer.acs)}">` +
      `<input type="hidden" name="SAMLResponse" value="${escapeHtml(answer.samlResponse)}">` +
      `<input type="hidden" name="RelayState" value="${escapeHtml(answer.relayState)}">` +
      `<noscript><button type="submit">Continue</button></noscript></form>` +
      `<script nonce="${nonce}">document.getElementById('saml').submit()</script>`,
    // No form-action: browsers apply it to the ACS's redirects too (on to the application).
    `; script-src 'nonce-${nonce}'`,
  );
}

/** The answer to `request` for `user`, broken as `v` says. */
async function answerFor(
  state: IdpState,
  request: Pending,
  user: SamlIdpUser,
  v: SamlIdpVariant,
): Promise<SamlIdpAnswer> {
  const entities = state.entities!;
  const sp =
    v === 'unsigned'
      ? // An SP that does not want signed assertions: samlify signs the Response only.
        samlify.ServiceProvider({
          metadata: request.spMetadata.replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"'),
        })
      : request.sp;
  const acs = request.sp.entityMeta.getAssertionConsumerService('post') as string;
  const t = state.now();
  const minutes = (n: number) => new Date(t.getTime() + n * 60_000);
  const values: AnswerValues = {
    id: `_${randomUUID().replaceAll('-', '')}`,
    assertionId: `_${randomUUID().replaceAll('-', '')}`,
    issuer: state.entityId,
    destination: v === 'wrong-destination' ? 'https://other-sp.example/saml/acs' : acs,
    audience:
      v === 'wrong-audience' ? 'https://other-sp.example/saml/metadata' : request.sp.entityMeta.getEntityID(),
    // IdP-initiated: an answer to no request.
    inResponseTo: v === 'unsolicited' ? '' : request.requestId,
    now: t,
    notBefore: v === 'expired' ? minutes(-10) : v === 'not-yet-valid' ? minutes(5) : t,
    notOnOrAfter: v === 'expired' ? minutes(-5) : minutes(v === 'not-yet-valid' ? 10 : 5),
    user,
  };
  const entity = v === 'wrong-certificate' ? entities.wrong : v === 'wrapped' ? entities.plain : entities.idp;
  const xml = responseXml(values);
  const context = (await entity.createLoginResponse(
    sp,
    { extract: { request: { id: request.requestId } } },
    'post',
    { email: user.email },
    {
      relayState: request.relayState,
      customTagReplacement: () => ({ id: values.id, context: xml }),
      // Unsigned: the Response is signed after the assertion is encrypted, so its signature holds.
      encryptThenSign: v === 'unsigned',
    },
  )) as { context: string };
  let samlResponse = context.context;
  if (v === 'wrapped') {
    const victim = state.users.find((u) => u.email !== user.email) ?? user;
    samlResponse = Buffer.from(
      wrapSignedResponse(Buffer.from(samlResponse, 'base64').toString('utf8'), victim),
    ).toString('base64');
  }
  return { acs, samlResponse, relayState: request.relayState };
}

/** `GET /sso` (HTTP-Redirect): the AuthnRequest, its signature checked against the SP's metadata. */
function ssoRoute(app: FastifyInstance, state: IdpState, spMetadataFor: (issuer: string) => Promise<string>) {
  app.get('/sso', async (req, reply) => {
    const query = req.query as Record<string, string | undefined>;
    const raw = req.url.split('?')[1] ?? '';
    try {
      if (!query.SAMLRequest) throw new Error('No SAMLRequest.');
      const requestXml = inflateRawSync(Buffer.from(query.SAMLRequest, 'base64')).toString('utf8');
      const issuer = /<(?:saml2?:)?Issuer[^>]*>([^<]+)</.exec(requestXml)?.[1];
      if (!issuer) throw new Error('The AuthnRequest names no issuer.');
      // The octet string the SP signed: its own encoding of the query, in its order, without Signature.
      const octetString = raw
        .split('&')
        .filter((p) => /^(SAMLRequest|RelayState|SigAlg)=/.test(p))
        .join('&');
      let failure: unknown;
      type Parsed = Awaited<ReturnType<samlify.IdentityProviderInstance['parseLoginRequest']>>;
      let found:
        { sp: ReturnType<typeof samlify.ServiceProvider>; spMetadata: string; parsed: Parsed } | undefined;
      for (const spMetadata of spMetadataVariants(
        await spMetadataFor(issuer),
        state.spEncryptionCertificate,
      )) {
        const sp = samlify.ServiceProvider({ metadata: spMetadata });
        try {
          const parsed = await state.entities!.idp.parseLoginRequest(sp, 'redirect', { query, octetString });
          found = { sp, spMetadata, parsed };
          break;
        } catch (error) {
          failure ??= error;
        }
      }
      if (!found)
        throw failure instanceof Error ? failure : new Error('The request is not signed by the SP.');
      const { sp, spMetadata, parsed } = found;
      const id = randomUUID();
      if (state.pending.size > 1000) state.pending.clear();
      state.pending.set(id, {
        sp,
        spMetadata,
        requestId: String(parsed.extract.request?.id ?? ''),
        relayState: query.RelayState ?? '',
      });
      return loginPage(reply, id);
    } catch (error) {
      return reply.code(400).send({ error: 'invalid_request', message: (error as Error).message });
    }
  });
}

/** `POST /login`: the person signs in; the answer (broken if the switch says so) goes to the ACS. */
function loginRoute(app: FastifyInstance, state: IdpState) {
  app.post('/login', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    const request = state.pending.get(body.pending ?? '');
    if (!request) return reply.code(400).send({ error: 'unknown_request' });
    const user = state.users.find(
      (u) => u.email === (body.email ?? '').trim().toLowerCase() && u.password === body.password,
    );
    if (!user) return loginPage(reply, body.pending ?? '', 'Wrong email or password.');
    state.pending.delete(body.pending ?? '');
    const current = state.variant;
    state.variant = 'valid';
    const answer =
      current === 'replayed' && state.last
        ? { ...state.last, relayState: request.relayState }
        : await answerFor(state, request, user, current);
    state.last = answer;
    return postPage(reply, answer);
  });
}

export async function startSamlIdp(options: SamlIdpOptions = {}): Promise<SamlIdp> {
  const allow = options.allowSpMetadata ?? loopback;
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 });
  // A development tool: say what went wrong.
  app.setErrorHandler(async (err, _req, reply) =>
    reply.code(500).send({ error: 'server_error', message: (err as Error).message }),
  );
  await app.register(formbody);
  // Routes are added before listening; what depends on the port is set right after it.
  const state: IdpState = {
    base: '',
    entityId: '',
    entities: undefined,
    users: options.users ?? SAML_IDP_DEMO_USERS,
    now: options.now ?? (() => new Date()),
    pending: new Map(),
    variant: 'valid',
    last: undefined,
    spEncryptionCertificate: options.spEncryptionCertificate ?? 'first',
  };
  const spCache = new Map<string, string>();
  async function spMetadataFor(issuer: string): Promise<string> {
    const cached = spCache.get(issuer);
    if (cached) return cached;
    const url = new URL(issuer);
    if (!allow(url)) throw new Error('This SP is not registered here.');
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) throw new Error(`The SP's metadata answered ${res.status}.`);
    const xml = await res.text();
    spCache.set(issuer, xml);
    return xml;
  }

  app.get('/', async (_req, reply) =>
    page(
      reply,
      'Initech sign-in (SAML stand-in)',
      `<h1>Initech SAML IdP</h1><p><a href="/metadata">Metadata</a></p>`,
    ),
  );
  app.get('/metadata', async (_req, reply) =>
    reply.header('content-type', 'application/samlmetadata+xml').send(state.entities!.idp.getMetadata()),
  );
  ssoRoute(app, state, spMetadataFor);
  loginRoute(app, state);
  // Development and tests only: the next answer is this broken variant.
  app.post('/test/variant', async (req, reply) => {
    const v = (req.body as { variant?: string } | undefined)?.variant;
    if (!SAML_IDP_VARIANTS.includes(v as SamlIdpVariant))
      return reply.code(400).send({ error: 'unknown_variant', variants: SAML_IDP_VARIANTS });
    state.variant = v as SamlIdpVariant;
    return { variant: state.variant };
  });

  await app.listen({ port: options.port ?? 4521, host: options.host ?? '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  state.base = (options.baseUrl ?? `http://localhost:${port}`).replace(/\/+$/, '');
  state.entityId = `${state.base}/metadata`;
  state.entities = entitiesFor(state.base, state.entityId, options.encryptAssertions ?? true);

  return {
    url: state.base,
    entityId: state.entityId,
    metadataUrl: state.entityId,
    ssoUrl: `${state.base}/sso`,
    certificate: SAML_IDP_CERT,
    setVariant: (v) => {
      state.variant = v;
    },
    lastAnswer: () => state.last,
    close: () => app.close(),
  };
}
