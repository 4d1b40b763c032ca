import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '@acme/db/clock';
import {
  SAML_IDP_DEMO_PASSWORD,
  SAML_IDP_DEMO_USERS,
  SAML_IDP_NEXT_KEY,
  startSamlIdp,
  type SamlIdp,
} from '@acme/dev';
import { DEV_SP_ENCRYPTION_KEY } from '../../../src/strategies/saml/dev-keys.ts';
import { SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

// IDENTITY_SAML_ENCRYPTION_KEY rotated: the published encryption certificate is still the old key's
// (an IdP encrypts to what it last read), while a new key is first in the list. The assertion is
// decrypted with the old key as long as it is listed, and refused once it is dropped.

const stacks: SsoStack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close();
});

/** Identity and user services with `encryptionKeys`, Initech's SAML IdP stand-in, milton as a member. */
async function stackWith(encryptionKeys: string): Promise<{ stack: SsoStack; idp: SamlIdp }> {
  const clock = new FakeClock(new Date('2026-11-20T10:00:00.000Z'));
  let idp!: SamlIdp;
  const stack = await startSsoStack({
    clock,
    identityEnv: { IDENTITY_SAML_ENCRYPTION_KEY: encryptionKeys },
    providers: async () => {
      idp = await startSamlIdp({ port: 0, now: () => clock.now(), users: [...SAML_IDP_DEMO_USERS] });
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
async function signIn({ stack, idp }: { stack: SsoStack; idp: SamlIdp }): Promise<number> {
  const browser = new Browser();
  const flow = await stack.newLoginFlow(browser);
  const idpUrl = await stack.submitSso(browser, flow, 'initech');
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

describe('SAML decryption key rotation (IDENTITY_SAML_ENCRYPTION_KEY)', () => {
  it('an assertion encrypted to the old certificate is decrypted while the old key is listed after the new one', async () => {
    expect(await signIn(await stackWith(`${SAML_IDP_NEXT_KEY},${DEV_SP_ENCRYPTION_KEY}`))).toBe(200);
  }, 60_000);

  it('an assertion encrypted to a key dropped from the list is refused: no session', async () => {
    expect(await signIn(await stackWith(SAML_IDP_NEXT_KEY))).toBe(401);
  }, 60_000);
});
