import { createVerify } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '@acme/db/clock';
import {
  SAML_IDP_DEMO_PASSWORD,
  SAML_IDP_DEMO_USERS,
  SAML_IDP_NEXT_CERT,
  SAML_IDP_NEXT_KEY,
  startSamlIdp,
  type SamlIdp,
} from '@acme/dev';
import {
  DEV_SP_ENCRYPTION_CERT,
  DEV_SP_ENCRYPTION_KEY,
  DEV_SP_SIGNING_CERT,
  DEV_SP_SIGNING_KEY,
} from '../../../src/strategies/saml/dev-keys.ts';
import { SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

// The service provider's SAML keys rotated in three steps, each key with its certificate at the same
// place in its list: (1) the new pair added second, (2) made first, (3) the old pair dropped. Every
// listed certificate is published in the SP metadata, the first key signs the AuthnRequests, every
// listed key decrypts: an organisation's IdP signs people in at every step, whether it has moved to
// the new certificate yet or not.

const stacks: SsoStack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close();
});

/** Identity and user services with `identityEnv`, Initech's SAML IdP stand-in, milton as a member. */
async function stackWith(
  identityEnv: Record<string, string>,
  encryptTo: NonNullable<Parameters<typeof startSamlIdp>[0]>['spEncryptionCertificate'] = 'first',
): Promise<{ stack: SsoStack; idp: SamlIdp }> {
  const clock = new FakeClock(new Date('2026-11-20T10:00:00.000Z'));
  let idp!: SamlIdp;
  const stack = await startSsoStack({
    clock,
    identityEnv,
    providers: async () => {
      idp = await startSamlIdp({
        port: 0,
        now: () => clock.now(),
        users: [...SAML_IDP_DEMO_USERS],
        spEncryptionCertificate: encryptTo,
      });
      return [idp];
    },
  });
  stacks.push(stack);
  const initech = await stack.createOrganisation('Initech', 'initech.test');
  const member = await stack.users('POST', '/admin/users', {
    organisationId: initech,
    email: 'milton@initech.test',
    firstName: 'Milton',
    lastName: 'Waddams',
    role: 'member',
  });
  expect(member.status).toBe(201);
  const provider = await stack.users('PUT', `/admin/organisations/${initech}/sso`, {
    protocol: 'saml',
    provider: 'initech',
    metadataXml: await (await fetch(idp.metadataUrl)).text(),
    jit: true,
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(200);
  clock.advance(31_000);
  return { stack, idp };
}

/** Milton signs in at the IdP, whose answer (an encrypted assertion) is posted to our ACS; answers whoami's status. */
async function signIn({ stack, idp }: { stack: SsoStack; idp: SamlIdp }, signer?: string): Promise<number> {
  const browser = new Browser();
  const flow = await stack.newLoginFlow(browser);
  const idpUrl = await stack.submitSso(browser, flow, 'initech');
  if (signer) expect(signedBy(idpUrl, signer)).toBe(true);
  const page = await (await fetch(idpUrl)).text();
  const pending = /name="pending" value="([^"]+)"/.exec(page)![1]!;
  const form = await (
    await fetch(`${idp.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ pending, email: 'milton@initech.test', password: SAML_IDP_DEMO_PASSWORD }),
    })
  ).text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
  const acs = await fetch(/action="([^"]+)"/.exec(form)![1]!.replaceAll('&amp;', '&'), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
      origin: new URL(idp.url).origin,
    },
    body: new URLSearchParams({ SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') }),
  });
  expect(acs.status).toBe(303);
  // Accepted: on to the finish, which makes the session. Refused: back to the app's login page.
  const next = acs.headers.get('location')!;
  if (next.includes('/self-service/methods/saml/finish/'))
    await browser.go(next, { headers: { accept: 'text/html' } });
  else expect(next).toMatch(/\/account\/login\?flow=/);
  return (await stack.whoami(browser)).status;
}

/** Whether the HTTP-Redirect AuthnRequest at `url` carries a signature by `cert`'s key. */
function signedBy(url: string, cert: string): boolean {
  const query = url.split('?')[1]!;
  const octets = query
    .split('&')
    .filter((p) => /^(SAMLRequest|RelayState|SigAlg)=/.test(p))
    .join('&');
  const signature = new URL(url).searchParams.get('Signature')!;
  return createVerify('RSA-SHA256').update(octets).verify(cert, signature, 'base64');
}

/** The certificates our metadata publishes for `use`, as base64 bodies. */
async function published(stack: SsoStack, use: 'signing' | 'encryption'): Promise<string[]> {
  const xml = await (
    await fetch(`${stack.identityPublic}/self-service/methods/saml/metadata/initech`)
  ).text();
  return [...xml.matchAll(/<KeyDescriptor use="(\w+)"[\s\S]*?<ds:X509Certificate>([^<]+)</g)]
    .filter((m) => m[1] === use)
    .map((m) => m[2]!.replace(/\s+/g, ''));
}

const body = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
const OLD = {
  signing: [DEV_SP_SIGNING_KEY, DEV_SP_SIGNING_CERT],
  encryption: [DEV_SP_ENCRYPTION_KEY, DEV_SP_ENCRYPTION_CERT],
};
const NEW = [SAML_IDP_NEXT_KEY, SAML_IDP_NEXT_CERT] as const;

/** Both key lists (and their certificates) in the order given: `old`/`new` per place. */
function keys(...order: Array<'old' | 'new'>): Record<string, string> {
  const pick = (use: 'signing' | 'encryption', i: 0 | 1) =>
    order.map((o) => (o === 'old' ? OLD[use][i]! : NEW[i])).join(',');
  return {
    IDENTITY_SAML_SIGNING_KEY: pick('signing', 0),
    IDENTITY_SAML_SIGNING_CERT: pick('signing', 1),
    IDENTITY_SAML_ENCRYPTION_KEY: pick('encryption', 0),
    IDENTITY_SAML_ENCRYPTION_CERT: pick('encryption', 1),
  };
}

describe('SAML service provider key rotation in three steps (IDENTITY_SAML_*_KEY and _CERT lists)', () => {
  it('step 1, the new pair listed second: both certificates published, the old key signs, sign-in works', async () => {
    const step = await stackWith(keys('old', 'new'));
    expect(await published(step.stack, 'signing')).toEqual([
      body(DEV_SP_SIGNING_CERT),
      body(SAML_IDP_NEXT_CERT),
    ]);
    expect(await published(step.stack, 'encryption')).toEqual([
      body(DEV_SP_ENCRYPTION_CERT),
      body(SAML_IDP_NEXT_CERT),
    ]);
    expect(await signIn(step, DEV_SP_SIGNING_CERT)).toBe(200);
  }, 60_000);

  it('step 2, the new pair first: the new key signs; an IdP encrypting to either certificate signs people in', async () => {
    const moved = await stackWith(keys('new', 'old'));
    expect(await signIn(moved, SAML_IDP_NEXT_CERT)).toBe(200);
    // An IdP that has not moved yet still encrypts to the old certificate (published last).
    const notMoved = await stackWith(keys('new', 'old'), 'last');
    expect(await signIn(notMoved, SAML_IDP_NEXT_CERT)).toBe(200);
  }, 90_000);

  it('step 3, the old pair dropped: only the new certificates are published, sign-in works', async () => {
    const step = await stackWith(keys('new'));
    expect(await published(step.stack, 'signing')).toEqual([body(SAML_IDP_NEXT_CERT)]);
    expect(await published(step.stack, 'encryption')).toEqual([body(SAML_IDP_NEXT_CERT)]);
    expect(await signIn(step, SAML_IDP_NEXT_CERT)).toBe(200);
  }, 60_000);

  it('an assertion encrypted to a key dropped from the list is refused: no session', async () => {
    // An IdP that never read the new metadata still encrypts to the old certificate after step 3.
    const stale = await stackWith(keys('new'), { pem: DEV_SP_ENCRYPTION_CERT });
    expect(await signIn(stale)).toBe(401);
  }, 60_000);
});
