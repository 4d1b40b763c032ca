import { pbkdf2Sync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { SoftAuthenticator } from '../../identity/test/strategies/passkey/soft-authenticator.ts';
import { platformAuthorizeUrl } from './auth-stack.ts';
import { Jar } from './jar.ts';
import { APP_ORIGIN, type LifecycleStack } from './lifecycle-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The account lifecycle as a model. Random sequences of what people and administrators do to an
 * organisation's accounts (self sign-up, invitations, SSO just-in-time sign-in, SCIM, the console,
 * address changes, SSO enforcement, passwords and passkeys, sign-ins) run against the real services
 * over HTTP. The model holds only what the world knows: who controls each mailbox (the owner of the
 * address, never the stranger), which addresses were proven (a mailed code entered, the IdP or the
 * organisation's directory vouching), the credentials each person holds, who was deactivated, and
 * whether the organisation enforces SSO. After every step the invariants are checked against the
 * real services by trying every credential and session each person holds:
 *  1. a stranger who never controlled the address holds no working credential or session on the
 *     account its owner uses;
 *  2. no token is issued for an address that was never proven, or to a deactivated person;
 *  3. a member of an enforcing organisation (other than the break-glass admin) has no way in
 *     except the IdP;
 *  4. the organisation keeps at least one org-admin who can sign in.
 */

const SLOTS = 2;
const IDP_PASSWORD = 'Idp-Lifecycle-Model-2026!';
const ROOT_PASSWORD = 'Root-Lifecycle-Model-2026!';
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

type Actor = 'owner' | 'stranger';

interface Holder {
  /** The password this person set on the account (never shown to the other person). */
  password?: string;
  /** This person's authenticator: every key in it was registered on the account. */
  auth: SoftAuthenticator;
  /** The browser this person signed in with last (its identity session and remembered login). */
  jar?: Jar;
  /** Tokens this person was issued last. */
  tokens?: { access_token: string; refresh_token?: string };
  /** An API client (client credentials) this person made in the console. */
  apiClient?: { id: string; secret: string };
}

interface Slot {
  /** The address the organisation knows; its mailbox is the owner's. */
  email: string;
  /** The address the account signs in with now (an address change moves it). */
  current: string;
  /** An address outside the organisation the owner also controls (the target of address changes). */
  elsewhere: string;
  identityId?: string;
  owner: Holder;
  stranger: Holder;
  deactivated: boolean;
  /** The role of the newest invitation to the address. */
  invitedAs?: string;
  /** The owner's role, once they accepted an invitation. */
  role?: string;
}

interface World {
  stack: LifecycleStack;
  /** The run's organisation, its SSO provider id and domain. */
  org: string;
  provider: string;
  domain: string;
  root: { email: string; userId: string; identityId: string; token: () => Promise<string> };
  /** The directory's SCIM token, once the organisation connected one (self sign-up closes then). */
  scimToken: string | undefined;
  slots: Slot[];
  /** Addresses whose control was proven: a mailed code entered, or the IdP or directory vouching. */
  proven: Set<string>;
  /** Identities the owner of an address signed in to (the accounts owners use). */
  ownerUsed: Set<string>;
  enforced: boolean;
  breakGlass: boolean;
  /** What happened, step by step, for the report of a counterexample. */
  log: string[];
}

class InvariantViolation extends Error {}

const violated = (w: World, invariant: number, what: string): never => {
  throw new InvariantViolation(
    `invariant ${invariant} broken: ${what}\n  steps:\n    ${w.log.join('\n    ')}`,
  );
};

let runs = 0;

/** A fresh organisation (its own domain, SSO provider, root org-admin, SCIM token) for one run. */
async function newWorld(stack: LifecycleStack): Promise<World> {
  const n = ++runs;
  const domain = `m${n}.lab.test`;
  const provider = `model-${n}`;
  const created = await stack.operator('POST', '/admin/organisations', {
    name: `Model ${n}`,
    domains: [domain],
    products: ['Platform'],
  });
  if (created.status !== 201) throw new Error(`organisation: ${created.status}`);
  const org = created.body.id as string;
  const rootEmail = `root@${domain}`;
  const root = await stack.operator('POST', '/admin/users', {
    organisationId: org,
    email: rootEmail,
    firstName: 'Root',
    lastName: 'Admin',
    role: 'org-admin',
    password: ROOT_PASSWORD,
  });
  if (root.status !== 201) throw new Error(`root: ${root.status} ${JSON.stringify(root.body)}`);
  const slots: Slot[] = Array.from({ length: SLOTS }, (_, i) => ({
    email: `person${i}@${domain}`,
    current: `person${i}@${domain}`,
    elsewhere: `person${i}@elsewhere-${n}.test`,
    owner: { auth: new SoftAuthenticator() },
    stranger: { auth: new SoftAuthenticator() },
    deactivated: false,
  }));
  for (const email of [rootEmail, ...slots.map((s) => s.email)]) {
    stack.idp.addUser({ email, password: IDP_PASSWORD, givenName: 'Idp', familyName: 'Person' });
  }
  stack.idp.setClient({
    clientId: `client-${n}`,
    clientSecret: `client-secret-${n}`,
    redirectUris: [`${stack.urls.identityPublic}/self-service/methods/oidc/callback/${provider}`],
  });
  const signUp = await stack.operator('PUT', `/admin/organisations/${org}/self-signup`, { enabled: true });
  if (signUp.status !== 200) throw new Error(`self sign-up: ${signUp.status}`);
  const sso = await stack.operator('PUT', `/admin/organisations/${org}/sso`, ssoSettings(stack, n, false));
  if (sso.status !== 200) throw new Error(`sso: ${sso.status} ${JSON.stringify(sso.body)}`);
  const glass = await stack.operator('PUT', `/admin/organisations/${org}/sso/break-glass`, {
    userId: root.body.id,
  });
  if (glass.status !== 200) throw new Error(`break-glass: ${glass.status}`);
  stack.clock.advance(31_000);
  const token = async () => {
    const res = await fetch(`${stack.urls.oauth2Admin}/admin/oauth2/federated-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: root.body.identityId,
        client_id: 'platform',
        session: { access_token: {} },
      }),
    });
    return ((await res.json()) as any).access_token as string;
  };
  return {
    stack,
    org,
    provider,
    domain,
    root: { email: rootEmail, userId: root.body.id, identityId: root.body.identityId, token },
    scimToken: undefined,
    slots,
    proven: new Set([rootEmail]),
    ownerUsed: new Set([root.body.identityId]),
    enforced: false,
    breakGlass: true,
    log: [],
  };
}

function ssoSettings(stack: LifecycleStack, n: number, enforce: boolean) {
  return {
    provider: `model-${n}`,
    issuer: stack.idp.issuer,
    clientId: `client-${n}`,
    clientSecret: `client-secret-${n}`,
    enforce,
  };
}

// ---------------------------------------------------------------------------------------------
// The browser's and the API clients' steps, over HTTP

const JSON_ACCEPT = { accept: 'application/json' };
const csrfOf = (flow: any): string =>
  flow?.ui?.nodes?.find((n: any) => n.attributes?.name === 'csrf_token')?.attributes.value ?? '';
const nodeValue = (flow: any, name: string): string | undefined =>
  flow?.ui?.nodes?.find((n: any) => n.attributes?.name === name)?.attributes.value;

async function whoami(w: World, jar: Jar | undefined): Promise<any | undefined> {
  if (!jar) return undefined;
  const { res, body } = await jar.fetch(`${w.stack.urls.identityPublic}/sessions/whoami`, {
    headers: JSON_ACCEPT,
  });
  return res.status === 200 ? body : undefined;
}

/** The newest mail to `to` whose text matches `pattern`, after `since` mails. */
function mailTo(w: World, to: string, since: number, pattern: RegExp): string | undefined {
  const mail = w.stack.mail.slice(since).filter((m) => m.to === to && pattern.test(m.text));
  return mail.at(-1)?.text;
}
const codeIn = (text: string | undefined) => text?.match(/\b(\d{6})\b/)?.[1];

type Credential =
  | { kind: 'password'; identifier: string; password: string }
  | { kind: 'passkey'; auth: SoftAuthenticator; key: number }
  | { kind: 'sso'; email: string };

const describeCredential = (c: Credential) =>
  c.kind === 'password'
    ? `password as ${c.identifier}`
    : c.kind === 'passkey'
      ? `passkey #${c.key}`
      : `SSO as ${c.email}`;

interface SignInOutcome {
  /** The identity the browser holds a session for afterwards, and its address. */
  identityId?: string;
  email?: string;
  /** Tokens the authorization server issued at the end. */
  tokens?: { access_token: string; refresh_token?: string };
  jar: Jar;
}

/**
 * The app's sign-in: the authorization request, the login flow for its challenge answered with
 * `credential` (the IdP's page for SSO), the consent when asked, and the code exchanged for tokens.
 */
async function signIn(w: World, credential: Credential, jar = new Jar(APP_ORIGIN)): Promise<SignInOutcome> {
  const { urls } = w.stack;
  const { url, verifier } = platformAuthorizeUrl(urls.issuer, APP_ORIGIN);
  const outcome: SignInOutcome = { jar };
  try {
    let at = await jar.navigateToApp(url);
    if (at.pathname === '/account/login') {
      const challenge = at.searchParams.get('login_challenge') ?? '';
      const flow = await jar.fetch(
        `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`,
        { headers: JSON_ACCEPT },
      );
      if (flow.res.status !== 200) return await settle(w, outcome);
      const next = await answerLogin(w, jar, flow.body, credential);
      if (!next) return await settle(w, outcome);
      at = await jar.navigateToApp(next);
    }
    if (at.pathname === '/account/consent') {
      const session = await whoami(w, jar);
      const consent = () =>
        new Jar().fetch(`${urls.users}/login/consent`, {
          method: 'POST',
          headers: { origin: APP_ORIGIN },
          json: {
            consentChallenge: at.searchParams.get('consent_challenge'),
            identitySessionId: session?.id,
          },
        });
      let accepted = await consent();
      if (accepted.body?.errorCode === 'TERMS_NOT_ACCEPTED') {
        // The app's Terms step: whoever signed in accepts them, and the consent is asked again.
        await acceptTerms(w, jar);
        accepted = await consent();
      }
      if (accepted.res.status !== 200) return await settle(w, outcome);
      at = await jar.navigateToApp(accepted.body.redirectTo);
    }
    const code = at.pathname === '/account/callback' ? at.searchParams.get('code') : null;
    if (code) {
      const token = await jar.fetch(`${urls.issuer}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: `${APP_ORIGIN}/account/callback`,
          code_verifier: verifier,
          client_id: 'platform',
        }).toString(),
      });
      if (token.res.status === 200 && token.body.access_token) outcome.tokens = token.body;
    }
  } catch {
    // A redirect chain that ends nowhere (an error page, a refusal): no token.
  }
  return settle(w, outcome);
}

async function settle(w: World, outcome: SignInOutcome): Promise<SignInOutcome> {
  const session = await whoami(w, outcome.jar);
  if (session) {
    outcome.identityId = session.identity.id;
    outcome.email = session.identity.traits.email;
  }
  return outcome;
}

/** Answers a login flow with the credential; where the browser goes next (undefined: refused). */
async function answerLogin(w: World, jar: Jar, flow: any, c: Credential): Promise<string | undefined> {
  const action = `${w.stack.urls.identityPublic}/self-service/login?flow=${flow.id}`;
  if (c.kind === 'sso') {
    const { res } = await jar.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: APP_ORIGIN },
      body: new URLSearchParams({
        method: 'oidc',
        provider: w.provider,
        csrf_token: csrfOf(flow),
      }).toString(),
    });
    const toIdp = res.headers.get('location');
    if (res.status !== 303 || !toIdp?.startsWith(w.stack.idp.issuer)) return undefined;
    return atIdp(w, jar, toIdp, c.email);
  }
  let json: Record<string, unknown>;
  if (c.kind === 'password') {
    json = { method: 'password', identifier: c.identifier, password: c.password };
  } else {
    const challenge = nodeValue(flow, 'passkey_challenge');
    if (!challenge) return undefined;
    const key = c.auth.keys[c.key];
    if (!key) return undefined;
    const answer = c.auth.get(JSON.parse(challenge).publicKey, { key });
    json = { method: 'passkey', passkey_login: JSON.stringify(answer) };
  }
  const res = await jar.fetch(action, {
    method: 'POST',
    headers: JSON_ACCEPT,
    json: { ...json, csrf_token: csrfOf(flow) },
  });
  return res.res.status === 422 ? res.body?.redirect_browser_to : undefined;
}

/** The IdP's sign-in page, answered as the person who controls `email` there; our callback URL. */
async function atIdp(w: World, jar: Jar, url: string, email: string): Promise<string | undefined> {
  const issuer = w.stack.idp.issuer;
  let next = url;
  let page: string | undefined;
  for (let hop = 0; hop < 10 && !page; hop++) {
    const { res } = await jar.fetch(next);
    const location = res.headers.get('location');
    if (!location) page = next;
    else next = new URL(location, next).toString();
  }
  if (!page?.startsWith(`${issuer}/interaction/`)) return undefined;
  let res = (
    await jar.fetch(`${page}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: IDP_PASSWORD }).toString(),
    })
  ).res;
  let current = `${page}/login`;
  for (let hop = 0; hop < 10; hop++) {
    const location = res.headers.get('location');
    if (!location) return undefined;
    current = new URL(location, current).toString();
    if (!current.startsWith(issuer)) return current;
    res = (await jar.fetch(current)).res;
  }
  return undefined;
}

/** The Terms step: the signed-in browser accepts the current terms and privacy notice. */
async function acceptTerms(w: World, jar: Jar): Promise<void> {
  const { urls } = w.stack;
  const terms = (await jar.fetch(`${urls.users}/terms/current`)).body;
  await jar.fetch(`${urls.users}/terms/accept`, {
    method: 'POST',
    headers: { origin: APP_ORIGIN },
    json: {
      documents: [
        { document: 'terms', version: terms?.terms?.version },
        { document: 'privacy', version: terms?.privacy?.version },
      ],
    },
  });
}

/** A settings flow in the signed-in browser; undefined when the session can not open one. */
async function settingsFlow(w: World, jar: Jar | undefined): Promise<any | undefined> {
  if (!jar) return undefined;
  const flow = await jar.fetch(`${w.stack.urls.identityPublic}/self-service/settings/browser`, {
    headers: JSON_ACCEPT,
  });
  return flow.res.status === 200 ? flow.body : undefined;
}

async function submitSettings(w: World, jar: Jar, flow: any, json: Record<string, unknown>) {
  const res = await jar.fetch(`${w.stack.urls.identityPublic}/self-service/settings?flow=${flow.id}`, {
    method: 'POST',
    headers: JSON_ACCEPT,
    json: { ...json, csrf_token: csrfOf(flow) },
  });
  return res.res.status === 200;
}

async function consoleCall(w: World, method: string, path: string, json?: unknown) {
  const { res, body } = await new Jar().fetch(`${w.stack.urls.users}/console/organisations/${w.org}${path}`, {
    method,
    headers: { authorization: `Bearer ${await w.root.token()}` },
    ...(json === undefined ? {} : { json }),
  });
  return { status: res.status, body };
}

async function scimCall(w: World, method: string, path: string, body?: unknown) {
  const { res, body: answer } = await new Jar().fetch(`${w.stack.urls.users}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${w.scimToken ?? ''}`, 'content-type': 'application/scim+json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: answer };
}

/** The user-service member of the slot's address, as the operator lists it. */
async function memberOf(w: World, email: string): Promise<any | undefined> {
  const list = await w.stack.operator('GET', `/admin/users?organisationId=${w.org}`);
  return (list.body?.users ?? []).find((u: any) => u.email === email);
}

const passwordOf = (actor: Actor, slot: number) =>
  actor === 'owner' ? `Owner-${slot}-Chose-This-2026!` : `Stranger-${slot}-Guessed-This-2026!`;

/**
 * The owner proves `email` with the code mailed to it: on the verification flow `flowId` whose code
 * was already sent (after `since` mails), or on a new one that asks for it. Adds it to the proven.
 */
async function verifyByCode(w: World, jar: Jar, email: string, flowId: string | undefined, since: number) {
  const { urls } = w.stack;
  let flow: any;
  if (flowId) {
    flow = (
      await jar.fetch(`${urls.identityPublic}/self-service/verification/flows?id=${flowId}`, {
        headers: JSON_ACCEPT,
      })
    ).body;
  } else {
    const started = await jar.fetch(`${urls.identityPublic}/self-service/verification/browser`, {
      headers: JSON_ACCEPT,
    });
    if (started.res.status !== 200) return false;
    flow = (
      await jar.fetch(`${urls.identityPublic}/self-service/verification?flow=${started.body.id}`, {
        method: 'POST',
        headers: JSON_ACCEPT,
        json: { method: 'code', email, csrf_token: csrfOf(started.body) },
      })
    ).body;
  }
  const code = codeIn(mailTo(w, email, since, /\b\d{6}\b/));
  if (!flow?.id || !code) return false;
  const done = await jar.fetch(`${urls.identityPublic}/self-service/verification?flow=${flow.id}`, {
    method: 'POST',
    headers: JSON_ACCEPT,
    json: { method: 'code', code, csrf_token: csrfOf(flow) },
  });
  if (done.body?.state !== 'passed_challenge') return false;
  w.proven.add(email);
  return true;
}

// ---------------------------------------------------------------------------------------------
// The invariants, against the real services

/** What a sign-in by `actor` on slot `s` must never give: invariants 1 to 3. */
function judge(w: World, s: number, actor: Actor, via: Credential, out: SignInOutcome): void {
  const slot = w.slots[s]!;
  const who = `the ${actor} of person${s} (${describeCredential(via)})`;
  if (out.identityId) {
    if (actor === 'stranger' && w.ownerUsed.has(out.identityId)) {
      violated(w, 1, `${who} signed in to the account its owner uses (${out.identityId})`);
    }
    const member = out.identityId !== w.root.identityId || !w.breakGlass;
    if (w.enforced && via.kind !== 'sso' && member) {
      violated(w, 3, `${who} signed in without the IdP while the organisation enforces SSO`);
    }
  }
  if (out.tokens) {
    if (!out.email || !w.proven.has(out.email)) {
      violated(w, 2, `${who} got a token for ${out.email ?? 'an unknown address'}, which was never proven`);
    }
    if (slot.deactivated && out.identityId === slot.identityId) {
      violated(w, 2, `${who} got a token after the person was deactivated`);
    }
  }
}

/** Every credential `holder` has for the slot's account. */
function credentialsOf(slot: Slot, holder: Holder): Credential[] {
  const out: Credential[] = [];
  if (holder.password) {
    for (const identifier of new Set([slot.email, slot.current])) {
      out.push({ kind: 'password', identifier, password: holder.password });
    }
  }
  holder.auth.keys.forEach((_, key) => out.push({ kind: 'passkey', auth: holder.auth, key }));
  return out;
}

/** Checks the four invariants against the real services (throws InvariantViolation). */
async function checkInvariants(w: World): Promise<void> {
  for (let s = 0; s < w.slots.length; s++) {
    const slot = w.slots[s]!;
    for (const actor of ['owner', 'stranger'] as const) {
      const holder = slot[actor];
      for (const credential of credentialsOf(slot, holder)) {
        judge(w, s, actor, credential, await signIn(w, credential));
      }
    }
    // Sessions held: the stranger's browser must not be in the owner's account.
    const held = await whoami(w, slot.stranger.jar);
    if (held && w.ownerUsed.has(held.identity.id)) {
      violated(w, 1, `the stranger's browser holds a session on person${s}'s account`);
    }
    // An API client of someone deactivated since gets no token.
    const client = slot.owner.apiClient;
    if (slot.deactivated && client) {
      const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
      const res = await fetch(`${w.stack.urls.issuer}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
        body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
      });
      if (res.status === 200)
        violated(w, 2, `person${s}'s API client got a token after the person was deactivated`);
    }
    // Tokens held by someone deactivated since: neither refresh nor userinfo answers.
    for (const actor of ['owner', 'stranger'] as const) {
      const tokens = slot[actor].tokens;
      if (!slot.deactivated || !tokens) continue;
      const info = await fetch(`${w.stack.urls.issuer}/userinfo`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      if (info.status === 200) violated(w, 2, `the ${actor}'s access token still answers at /userinfo`);
      if (tokens.refresh_token) {
        const refreshed = await fetch(`${w.stack.urls.issuer}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token,
            client_id: 'platform',
          }).toString(),
        });
        if (refreshed.status === 200) violated(w, 2, `the ${actor}'s refresh token still works`);
      }
    }
  }
  await checkAdmins(w);
}

/** Invariant 4 (and 3 for the root admin when it is not the break-glass admin). */
async function checkAdmins(w: World): Promise<void> {
  const rootPassword: Credential = { kind: 'password', identifier: w.root.email, password: ROOT_PASSWORD };
  const passwordAllowed = !w.enforced || w.breakGlass;
  if (!passwordAllowed) {
    const out = await signIn(w, rootPassword);
    if (out.identityId) violated(w, 3, 'the root admin signed in with a password though not break-glass');
  }
  const members = (await w.stack.operator('GET', `/admin/users?organisationId=${w.org}`)).body?.users ?? [];
  const admins = new Set(members.filter((u: any) => u.role === 'org-admin').map((u: any) => u.identityId));
  // Every org-admin the real service lists, with every way in its owner has: the IdP first (every
  // address of the organisation has an account there), then what they set up themselves.
  const candidates: { identityId: string | undefined; ways: Credential[] }[] = [
    {
      identityId: w.root.identityId,
      ways: [...(passwordAllowed ? [rootPassword] : []), { kind: 'sso', email: w.root.email }],
    },
    ...w.slots.map((slot) => ({
      identityId: slot.identityId,
      ways: [{ kind: 'sso', email: slot.email } as Credential, ...credentialsOf(slot, slot.owner)],
    })),
  ];
  for (const { identityId, ways } of candidates) {
    if (!identityId || !admins.has(identityId)) continue;
    for (const way of ways) {
      const out = await signIn(w, way);
      if (out.tokens && out.identityId === identityId) return;
    }
  }
  violated(w, 4, 'no org-admin of the organisation can sign in');
}

// ---------------------------------------------------------------------------------------------
// The commands

type Step = fc.AsyncCommand<World, World>;

/** A step: `act` does it (answering what happened), then the invariants are checked. */
function step(
  name: string,
  act: (w: World) => Promise<string>,
  when: (w: Readonly<World>) => boolean = () => true,
): Step {
  return {
    check: when,
    async run(w) {
      const what = await act(w);
      w.log.push(`${name} → ${what}`);
      await checkInvariants(w);
    },
    toString: () => name,
  };
}

/** Registers the slot's address with the actor's password (self sign-up); the owner enters the code. */
const register = (s: number, actor: Actor): Step =>
  step(`${actor} registers person${s}`, async (w) => {
    const slot = w.slots[s]!;
    const jar = new Jar(APP_ORIGIN);
    const { urls } = w.stack;
    const flow = await jar.fetch(`${urls.identityPublic}/self-service/registration/browser`, {
      headers: JSON_ACCEPT,
    });
    if (flow.res.status !== 200) return `no registration flow (${flow.res.status})`;
    const since = w.stack.mail.length;
    const password = passwordOf(actor, s);
    const res = await jar.fetch(`${urls.identityPublic}/self-service/registration?flow=${flow.body.id}`, {
      method: 'POST',
      headers: JSON_ACCEPT,
      json: {
        method: 'password',
        password,
        traits: { email: slot.email, name: { first: 'Self', last: 'Registered' } },
        csrf_token: csrfOf(flow.body),
      },
    });
    // 200 with the session, or a location change to the address's verification: created either way.
    if (res.res.status !== 200 && res.res.status !== 422) return `refused (${res.res.status})`;
    slot[actor].password = password;
    slot.identityId ??= res.body?.identity?.id ?? res.body?.session?.identity?.id;
    slot[actor].jar = jar;
    if (actor === 'stranger') return 'registered; the code went to the owner’s mailbox';
    const shown = (res.body?.continue_with ?? []).find((c: any) => c.action === 'show_verification_ui');
    const redirect = res.body?.redirect_browser_to as string | undefined;
    const flowId = shown?.flow?.id ?? (redirect ? new URL(redirect).searchParams.get('flow') : undefined);
    if (!(await verifyByCode(w, jar, slot.email, flowId ?? undefined, since))) {
      return 'registered; the code was refused';
    }
    const session = await whoami(w, jar);
    if (session) w.ownerUsed.add(session.identity.id);
    return 'registered and verified';
  });

/** The owner signs in through the organisation's IdP (just in time, or linking). */
const ownerSso = (s: number): Step =>
  step(`owner of person${s} signs in with SSO`, async (w) => {
    const slot = w.slots[s]!;
    const via: Credential = { kind: 'sso', email: slot.email };
    const out = await signIn(w, via);
    if (!out.identityId) return 'no session';
    // The IdP vouched for the address; the owner now uses this account.
    w.proven.add(slot.email);
    w.ownerUsed.add(out.identityId);
    slot.identityId ??= out.identityId;
    slot.owner.jar = out.jar;
    judge(w, s, 'owner', via, out);
    if (out.tokens) slot.owner.tokens = out.tokens;
    return out.tokens ? 'signed in, token issued' : 'signed in, no token';
  });

/** A person signs in with what they hold (password, else passkey), keeping the browser and tokens. */
const personSignsIn = (s: number, actor: Actor): Step =>
  step(
    `${actor} of person${s} signs in`,
    async (w) => {
      const slot = w.slots[s]!;
      const [via] = credentialsOf(slot, slot[actor]).reverse();
      if (!via) return 'holds nothing';
      const out = await signIn(w, via);
      judge(w, s, actor, via, out);
      if (!out.identityId) return 'refused';
      slot[actor].jar = out.jar;
      if (out.tokens) slot[actor].tokens = out.tokens;
      if (actor === 'owner') w.ownerUsed.add(out.identityId);
      return out.tokens ? 'signed in, token issued' : 'signed in, no token';
    },
    (w) => {
      const h = w.slots[s]![actor];
      return !!h.password || h.auth.keys.length > 0;
    },
  );

/** An org-admin invites the slot's address in the console. */
const invite = (s: number, role: 'member' | 'org-admin'): Step =>
  step(`admin invites person${s} as ${role}`, async (w) => {
    const slot = w.slots[s]!;
    const res = await consoleCall(w, 'POST', '/invitations', {
      email: slot.email,
      firstName: 'Invited',
      lastName: 'Person',
      role: role,
    });
    if (res.status !== 201) return `refused (${res.status} ${res.body?.errorCode ?? ''})`;
    slot.identityId ??= res.body.identityId;
    slot.invitedAs = role;
    // An invitation is the admin letting the person in again (as reactivation in the console is):
    // an account it adopts is active again.
    slot.deactivated = false;
    return 'invited';
  });

/** An org-admin revokes the newest invitation to the address in the console. */
const revokeInvitation = (s: number): Step =>
  step(
    `admin revokes the invitation of person${s}`,
    async (w) => {
      const slot = w.slots[s]!;
      const list = await consoleCall(w, 'GET', '/invitations');
      const invitation = (list.body?.invitations ?? []).find(
        (i: any) => i.email === slot.email && i.state === 'pending',
      );
      if (!invitation) return 'no pending invitation';
      const res = await consoleCall(w, 'POST', `/invitations/${invitation.id}/revoke`);
      if (res.status !== 200) return `refused (${res.status})`;
      slot.invitedAs = undefined;
      return 'revoked';
    },
    (w) => !!w.slots[s]!.invitedAs,
  );

/** The owner follows the newest invitation mail: code, own password, the terms. */
const acceptInvitation = (s: number): Step =>
  step(
    `owner of person${s} accepts the invitation`,
    async (w) => {
      const slot = w.slots[s]!;
      const text = mailTo(w, slot.email, 0, /\/account\/onboarding\?/);
      const link = text ? new URL(/https?:\/\/\S+/.exec(text)![0]) : undefined;
      if (!link) return 'no invitation mail';
      const { urls } = w.stack;
      const jar = new Jar(APP_ORIGIN);
      const flow = link.searchParams.get('flow')!;
      const submitted = await jar.fetch(
        `${urls.identityPublic}/self-service/recovery?flow=${encodeURIComponent(flow)}`,
        {
          method: 'POST',
          headers: JSON_ACCEPT,
          json: { method: 'code', code: link.searchParams.get('code') },
        },
      );
      if (submitted.res.status !== 422) return `code refused (${submitted.res.status})`;
      // The code came from the owner's mailbox: the address is proven.
      w.proven.add(slot.email);
      const session = await whoami(w, jar);
      if (session) {
        w.ownerUsed.add(session.identity.id);
        slot.identityId ??= session.identity.id;
      }
      slot.owner.jar = jar;
      const settings = await settingsFlow(w, jar);
      const password = passwordOf('owner', s);
      if (settings && (await submitSettings(w, jar, settings, { method: 'password', password }))) {
        slot.owner.password = password;
      }
      await acceptTerms(w, jar);
      const member = await memberOf(w, slot.email);
      if (member) slot.role = member.role;
      return `accepted (${slot.role ?? 'no member'})`;
    },
    (w) => !!w.slots[s]!.invitedAs,
  );

/** The owner recovers the account with a code mailed to the address it signs in with. */
const recover = (s: number, newPassword = true): Step =>
  step(
    `owner of person${s} recovers the account by mailed code${newPassword ? '' : ', sets no password'}`,
    async (w) => {
      const slot = w.slots[s]!;
      const { urls } = w.stack;
      const jar = new Jar(APP_ORIGIN);
      const flow = await jar.fetch(`${urls.identityPublic}/self-service/recovery/browser`, {
        headers: JSON_ACCEPT,
      });
      if (flow.res.status !== 200) return `no flow (${flow.res.status})`;
      const action = `${urls.identityPublic}/self-service/recovery?flow=${flow.body.id}`;
      const since = w.stack.mail.length;
      const asked = await jar.fetch(action, {
        method: 'POST',
        headers: JSON_ACCEPT,
        json: { method: 'code', email: slot.current, csrf_token: csrfOf(flow.body) },
      });
      const code = codeIn(mailTo(w, slot.current, since, /\b\d{6}\b/));
      if (asked.res.status !== 200 || !code) return `no code (${asked.res.status})`;
      const submitted = await jar.fetch(action, {
        method: 'POST',
        headers: JSON_ACCEPT,
        json: { method: 'code', code, csrf_token: csrfOf(asked.body) },
      });
      if (submitted.res.status !== 422) return `code refused (${submitted.res.status})`;
      w.proven.add(slot.current);
      const session = await whoami(w, jar);
      if (!session) return 'no session';
      w.ownerUsed.add(session.identity.id);
      slot.owner.jar = jar;
      // A member of an enforcing organisation gets in only through the IdP (invariant 3).
      if (w.enforced && session.identity.id !== w.root.identityId) {
        violated(w, 3, `the owner of person${s} got a session by account recovery under SSO enforcement`);
      }
      // The app continues with a new password in settings (which the person may leave).
      if (!newPassword) return 'recovered';
      const next = submitted.body?.redirect_browser_to as string | undefined;
      const settingsId = next ? new URL(next).searchParams.get('flow') : null;
      const settings = settingsId
        ? (
            await jar.fetch(`${urls.identityPublic}/self-service/settings/flows?id=${settingsId}`, {
              headers: JSON_ACCEPT,
            })
          ).body
        : undefined;
      const password = passwordOf('owner', s);
      if (settings && (await submitSettings(w, jar, settings, { method: 'password', password }))) {
        slot.owner.password = password;
        return 'recovered; new password set';
      }
      return 'recovered';
    },
  );

/** The owner sets a password in settings (signed-in browser). */
const addPassword = (s: number): Step =>
  step(
    `owner of person${s} sets a password`,
    async (w) => {
      const slot = w.slots[s]!;
      const flow = await settingsFlow(w, slot.owner.jar);
      if (!flow) return 'no settings flow';
      const password = passwordOf('owner', s);
      if (!(await submitSettings(w, slot.owner.jar!, flow, { method: 'password', password })))
        return 'refused';
      slot.owner.password = password;
      return 'password set';
    },
    (w) => !!w.slots[s]!.owner.jar,
  );

/** The actor adds a passkey in settings, in the browser they signed in with. */
const addPasskey = (s: number, actor: Actor): Step =>
  step(
    `${actor} of person${s} adds a passkey`,
    async (w) => {
      const holder = w.slots[s]![actor];
      const flow = await settingsFlow(w, holder.jar);
      const options = nodeValue(flow, 'passkey_create_data');
      if (!flow || !options) return 'no passkey set-up offered';
      const created = holder.auth.create(JSON.parse(options).credentialOptions.publicKey);
      const ok = await submitSettings(w, holder.jar!, flow, {
        method: 'passkey',
        passkey_settings_register: JSON.stringify(created),
      });
      if (!ok) {
        holder.auth.keys.pop();
        return 'refused';
      }
      return 'passkey added';
    },
    (w) => !!w.slots[s]![actor].jar,
  );

/** The owner moves the account to an address outside the organisation (which they control). */
const changeAddress = (s: number): Step =>
  step(
    `owner of person${s} changes the address`,
    async (w) => {
      const slot = w.slots[s]!;
      const flow = await settingsFlow(w, slot.owner.jar);
      const traits = flow?.identity?.traits;
      if (!traits) return 'no settings flow';
      const target = slot.current === slot.elsewhere ? slot.email : slot.elsewhere;
      const ok = await submitSettings(w, slot.owner.jar!, flow, {
        method: 'profile',
        traits: { ...traits, email: target },
      });
      if (!ok) return 'refused';
      slot.current = target;
      return `address now ${target}`;
    },
    (w) => !!w.slots[s]!.owner.jar,
  );

/** The owner proves the address the account has now, with a code mailed to it. */
const verifyAddress = (s: number): Step =>
  step(`owner of person${s} verifies the current address`, async (w) => {
    const slot = w.slots[s]!;
    const jar = new Jar(APP_ORIGIN);
    if (!(await verifyByCode(w, jar, slot.current, undefined, w.stack.mail.length))) {
      return 'refused';
    }
    return `${slot.current} proven`;
  });

/**
 * An API client acting for the owner (the operator's API, as the CLI makes one for a person who
 * holds ManageAccessTokens and the scope group it grants).
 */
const makeApiClient = (s: number): Step =>
  step(
    `an API client is made for person${s}`,
    async (w) => {
      const slot = w.slots[s]!;
      const member = await memberOf(w, slot.email);
      if (!member) return 'no member';
      await w.stack.operator('PATCH', `/admin/users/${member.id}`, { scopeGroups: ['research'] });
      const res = await w.stack.operator('POST', '/admin/api-clients', {
        organisationId: w.org,
        name: 'export',
        scopeGroups: ['research'],
        actorEmail: slot.email,
      });
      if (res.status !== 201) return `refused (${res.status} ${res.body?.errorCode ?? ''})`;
      slot.owner.apiClient = { id: res.body.id, secret: res.body.clientSecret };
      return 'made';
    },
    // The person asks for it: only while they are active.
    (w) => !w.slots[s]!.deactivated,
  );

/** An org-admin connects the organisation's directory: a SCIM token (self sign-up closes). */
const connectDirectory = (): Step =>
  step(
    'admin connects the directory (SCIM)',
    async (w) => {
      const res = await consoleCall(w, 'POST', '/scim/tokens', { name: 'Directory' });
      if (res.status !== 201) return `refused (${res.status})`;
      w.scimToken = res.body.token;
      w.stack.clock.advance(31_000);
      return 'connected';
    },
    (w) => w.scimToken === undefined,
  );

/**
 * The operator imports the person from another system (`PATCH /admin/identities` on the identity
 * service): the owner's old password as a PBKDF2 hash, the address marked proven (the operator vouches
 * for it, as Kratos honours `verified` on import). The owner claims the account by signing in with that
 * old password. An address taken already (a stranger's self sign-up) is that item's 409: nothing changes.
 */
const importPerson = (s: number): Step =>
  step(`operator imports person${s} with a PBKDF2 hash`, async (w) => {
    const slot = w.slots[s]!;
    const password = passwordOf('owner', s);
    const salt = randomBytes(16);
    const key = pbkdf2Sync(password, salt, 1000, 32, 'sha256');
    const { res, body } = await new Jar().fetch(`${w.stack.urls.identityAdmin}/admin/identities`, {
      method: 'PATCH',
      headers: JSON_ACCEPT,
      json: {
        identities: [
          {
            create: {
              schema_id: 'default',
              traits: { email: slot.email, name: { first: 'Imported', last: 'Person' } },
              verifiable_addresses: [{ value: slot.email, verified: true, via: 'email' }],
              credentials: {
                password: {
                  config: {
                    hashed_password: `$pbkdf2-sha256$i=1000,l=32$${salt.toString('base64')}$${key.toString('base64')}`,
                  },
                },
              },
            },
          },
        ],
      },
    });
    const item = body?.identities?.[0];
    if (item?.action !== 'create') return `refused (${res.status})`;
    w.proven.add(slot.email);
    slot.owner.password = password;
    slot.identityId ??= item.identity;
    return 'imported';
  });

/** The organisation's directory creates the person (SCIM). */
const scimCreate = (s: number): Step =>
  step(
    `directory creates person${s}`,
    async (w) => {
      const slot = w.slots[s]!;
      const res = await scimCall(w, 'POST', '/Users', {
        schemas: [SCIM_USER],
        userName: slot.email,
        name: { givenName: 'Directory', familyName: 'Person' },
        active: true,
      });
      if (res.status !== 201) return `refused (${res.status})`;
      // The directory vouches for the address.
      w.proven.add(slot.email);
      slot.deactivated = false;
      const member = await memberOf(w, slot.email);
      slot.identityId ??= member?.identityId ?? undefined;
      return 'created';
    },
    (w) => w.scimToken !== undefined,
  );

/** The directory sets `active` (SCIM PATCH). */
const scimActive = (s: number, active: boolean): Step =>
  step(
    `directory sets person${s} active=${active}`,
    async (w) => {
      const slot = w.slots[s]!;
      const found = await scimCall(
        w,
        'GET',
        `/Users?filter=${encodeURIComponent(`userName eq "${slot.email}"`)}`,
      );
      const id = found.body?.Resources?.[0]?.id;
      if (!id) return 'not in the directory';
      const res = await scimCall(w, 'PATCH', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: active }],
      });
      if (res.status !== 200) return `refused (${res.status})`;
      slot.deactivated = !active;
      if (!active) slot.identityId ??= (await memberOf(w, slot.email))?.identityId ?? undefined;
      return active ? 'reactivated' : 'deactivated';
    },
    (w) => w.scimToken !== undefined,
  );

/** An org-admin deactivates (or reactivates) the person in the console. */
const consoleActive = (s: number, active: boolean): Step =>
  step(`admin ${active ? 'reactivates' : 'deactivates'} person${s} in the console`, async (w) => {
    const slot = w.slots[s]!;
    const member = await memberOf(w, slot.email);
    if (!member) return 'no member';
    const res = await consoleCall(w, 'POST', `/members/${member.id}/${active ? 'reactivate' : 'deactivate'}`);
    if (res.status !== 200 && res.status !== 204)
      return `refused (${res.status} ${res.body?.errorCode ?? ''})`;
    slot.deactivated = !active;
    slot.identityId ??= member.identityId ?? undefined;
    return active ? 'reactivated' : 'deactivated';
  });

/** The operator turns SSO enforcement on or off for the organisation. */
const enforce = (on: boolean): Step =>
  step(
    `SSO enforcement ${on ? 'on' : 'off'}`,
    async (w) => {
      const n = Number(w.provider.slice('model-'.length));
      const res = await w.stack.operator(
        'PUT',
        `/admin/organisations/${w.org}/sso`,
        ssoSettings(w.stack, n, on),
      );
      if (res.status !== 200) return `refused (${res.status})`;
      w.enforced = on;
      w.stack.clock.advance(31_000);
      return on ? 'enforced' : 'not enforced';
    },
    (w) => w.enforced !== on,
  );

/** The operator names the root org-admin break-glass admin, or clears it. */
const breakGlass = (on: boolean): Step =>
  step(
    `break-glass admin ${on ? 'named' : 'cleared'}`,
    async (w) => {
      const path = `/admin/organisations/${w.org}/sso/break-glass`;
      const res = on
        ? await w.stack.operator('PUT', path, { userId: w.root.userId })
        : await w.stack.operator('DELETE', path);
      if (res.status !== 200) return `refused (${res.status})`;
      w.breakGlass = on;
      w.stack.clock.advance(31_000);
      return 'done';
    },
    (w) => w.breakGlass !== on,
  );

/** The root org-admin steps down to member in the console. */
const rootStepsDown = (): Step =>
  step('root org-admin steps down to member', async (w) => {
    const res = await consoleCall(w, 'POST', `/members/${w.root.userId}/role`, { role: 'member' });
    return res.status === 200 ? 'now a member' : `refused (${res.status} ${res.body?.errorCode ?? ''})`;
  });

const slot = fc.nat({ max: SLOTS - 1 });
const actor = fc.constantFrom<Actor>('owner', 'stranger');

/** Every command, with its arguments drawn at random. */
const lifecycleCommands = [
  fc.tuple(slot, actor).map(([s, a]) => register(s, a)),
  slot.map((s) => ownerSso(s)),
  fc.tuple(slot, actor).map(([s, a]) => personSignsIn(s, a)),
  fc
    .tuple(slot, fc.constantFrom<'member' | 'org-admin'>('member', 'org-admin'))
    .map(([s, r]) => invite(s, r)),
  slot.map((s) => revokeInvitation(s)),
  slot.map((s) => acceptInvitation(s)),
  fc.tuple(slot, fc.boolean()).map(([s, p]) => recover(s, p)),
  slot.map((s) => addPassword(s)),
  fc.tuple(slot, actor).map(([s, a]) => addPasskey(s, a)),
  slot.map((s) => changeAddress(s)),
  slot.map((s) => makeApiClient(s)),
  slot.map((s) => verifyAddress(s)),
  fc.constant(connectDirectory()),
  slot.map((s) => scimCreate(s)),
  fc.tuple(slot, fc.boolean()).map(([s, on]) => scimActive(s, on)),
  fc.tuple(slot, fc.boolean()).map(([s, on]) => consoleActive(s, on)),
  fc.boolean().map((on) => enforce(on)),
  fc.boolean().map((on) => breakGlass(on)),
  fc.constant(rootStepsDown()),
  slot.map((s) => importPerson(s)),
];

/**
 * Runs the model: `runs` random sequences of at most `maxCommands` steps from `seed`, each on a
 * fresh organisation of `stack`. Resolves with fast-check's details (a failure names the seed, the
 * path to replay it and the shrunk counterexample).
 */
export function runLifecycleModel(
  stack: LifecycleStack,
  options: {
    seed: number;
    runs: number;
    maxCommands: number;
    path?: string;
    onRun?: (log: string[]) => void;
  },
) {
  return fc.check(
    fc.asyncProperty(
      fc.commands(lifecycleCommands, { maxCommands: options.maxCommands, size: 'max' }),
      async (cmds) => {
        const w = await newWorld(stack);
        try {
          await fc.asyncModelRun(() => ({ model: w, real: w }), cmds);
        } finally {
          options.onRun?.(w.log);
        }
      },
    ),
    {
      seed: options.seed,
      numRuns: options.runs,
      ...(options.path ? { path: options.path } : {}),
      endOnFailure: false,
    },
  );
}

/** The commands by name, for replaying a known sequence. */
export const steps = {
  register,
  ownerSso,
  signIn: personSignsIn,
  invite,
  revokeInvitation,
  acceptInvitation,
  recover,
  addPassword,
  addPasskey,
  changeAddress,
  verifyAddress,
  makeApiClient,
  connectDirectory,
  scimCreate,
  scimActive,
  consoleActive,
  enforce,
  breakGlass,
  rootStepsDown,
  importPerson,
};

/** Replays one sequence on a fresh organisation: the steps' log, or the violation thrown. */
export async function replay(stack: LifecycleStack, sequence: Step[]): Promise<string[]> {
  const w = await newWorld(stack);
  await fc.asyncModelRun(() => ({ model: w, real: w }), sequence);
  return w.log;
}
