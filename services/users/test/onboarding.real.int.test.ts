import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@acme/db';
import type { Database } from '@acme/db';
import { startStandIns } from '@acme/dev';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '../src/index.ts';
import { seedDemo } from '../src/seed.ts';
import { platformAuthorizeUrl, startAuthStack } from './auth-stack.ts';
import { Jar } from './jar.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Invitation onboarding, terms and git-auth through our real identity service (admin recovery
 * codes, recovery and settings flows, whoami), authorization server and the GitHub-like stand-in,
 * all in process on one database, as `npm start` runs them.
 */

const APP = 'http://localhost:4000';
const PASSWORD = 'Onboarding-Journey-2026!';
const current = (terms: string, privacy: string) => ({
  documents: [
    { document: 'terms', version: terms },
    { document: 'privacy', version: privacy },
  ],
});

describe('onboarding through the real identity service', () => {
  let db: Database;
  const urls: Record<string, string> = {};
  const closers: (() => Promise<void>)[] = [];
  const mailer = createMemoryMailer();
  let orgId: string;

  beforeAll(async () => {
    db = await createTestDb();
    const [usersPublic, usersAdmin, users2Public, users2Admin] = await Promise.all(
      Array.from({ length: 4 }, () => freePort()),
    );

    const standIns = await startStandIns({ httpPort: 0, smtpPort: 0 });
    closers.push(standIns.close);
    Object.assign(
      urls,
      await startAuthStack(db, closers, { appOrigin: APP, identityMailer: createMemoryMailer() }),
    );
    const env = {
      IDENTITY_ADMIN_URL: urls.identityAdmin,
      IDENTITY_PUBLIC_URL: urls.identityPublic,
      OAUTH2_ADMIN_URL: urls.oauth2Admin,
      GIT_OAUTH_AUTHORIZE_URL: `${standIns.urls.github}/login/oauth/authorize`,
      GIT_OAUTH_TOKEN_URL: `${standIns.urls.github}/login/oauth/access_token`,
      GIT_API_URL: standIns.urls.githubApi,
    };
    const users = await startUsers({
      db,
      logger: false,
      mailer,
      env: {
        ...env,
        USERS_PUBLIC_PORT: String(usersPublic),
        USERS_ADMIN_PORT: String(usersAdmin),
        USERS_MANAGEMENT_PORT: '0',
      },
    });
    closers.push(users.close);
    // The same service after the terms of service changed (a new deployment on the same database).
    const users2 = await startUsers({
      db,
      logger: false,
      mailer,
      env: {
        ...env,
        USERS_PUBLIC_PORT: String(users2Public),
        USERS_ADMIN_PORT: String(users2Admin),
        USERS_MANAGEMENT_PORT: '0',
        TERMS_VERSION: '2026-02',
      },
    });
    closers.push(users2.close);
    urls.users = users.urls.public!;
    urls.usersAdmin = users.urls.admin!;
    urls.users2 = users2.urls.public!;
    orgId = (await seedDemo(urls.usersAdmin)).organisationId;
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await db.close();
  });

  const admin = new Jar();
  async function invite(email: string, isGitUser = false) {
    const res = await admin.fetch(`${urls.usersAdmin}/admin/invitations`, {
      method: 'POST',
      json: { organisationId: orgId, email, firstName: 'New', lastName: 'Person', role: 'member', isGitUser },
    });
    expect(res.res.status).toBe(201);
    const mail = mailer.messages.filter((m) => m.to === email).at(-1)!;
    const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
    return {
      invitation: res.body,
      flow: link.searchParams.get('flow')!,
      code: link.searchParams.get('code')!,
      link,
    };
  }
  const status = async (flow: string) =>
    (await new Jar().fetch(`${urls.users}/invitations/status?flow=${encodeURIComponent(flow)}`)).body;
  const submitCode = (jar: Jar, flow: string, code: string) =>
    jar.fetch(`${urls.identityPublic}/self-service/recovery?flow=${encodeURIComponent(flow)}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'code', code },
    });
  /** The identity as the admin API answers it (null when there is none). */
  const identityOf = (id: string): Promise<any> =>
    createIdentityAdminClient({ baseUrl: urls.identityAdmin! }).getIdentity(id);

  /** Authorize as the app does, sign in with the password, and post the consent as the app does. */
  async function signInThroughConsent(usersUrl: string, email: string) {
    const jar = new Jar();
    const { url: authorizeUrl } = platformAuthorizeUrl(urls.issuer!, APP);
    const login = await jar.navigateToApp(authorizeUrl);
    const challenge = login.searchParams.get('login_challenge')!;
    const flow = await jar.fetch(
      `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`,
      { headers: { accept: 'application/json' } },
    );
    const csrf = flow.body.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const submitted = await jar.fetch(`${urls.identityPublic}/self-service/login?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrf },
    });
    expect(submitted.res.status).toBe(422);
    const whoami = await jar.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    const consent = await jar.navigateToApp(submitted.body.redirect_browser_to);
    const accepted = await new Jar().fetch(`${usersUrl}/login/consent`, {
      method: 'POST',
      headers: { origin: APP },
      json: {
        consentChallenge: consent.searchParams.get('consent_challenge'),
        identitySessionId: whoami.body.id,
      },
    });
    expect(accepted.res.status).toBe(200);
    return jar;
  }

  it('invited user: code → password → terms → git link → sign-in; terms asked again after a version change', async () => {
    const { invitation, flow, code, link } = await invite('newbie@acme.test', true);
    expect(`${link.origin}${link.pathname}`).toBe(`${APP}/account/onboarding`);
    expect(await status(flow)).toEqual({ state: 'pending' });
    const created = await identityOf(invitation.identityId);
    expect(created.traits.onboarding).toMatchObject({
      isGitUser: true,
      tosAccepted: false,
      gitProviderConnected: false,
    });
    expect(created.verifiable_addresses[0].verified).toBe(false);

    // Email step: the app submits the code (recovery, method code) and gets a session.
    const browser = new Jar();
    const flowRes = await browser.fetch(`${urls.identityPublic}/self-service/recovery/flows?id=${flow}`, {
      headers: { accept: 'application/json' },
    });
    expect(flowRes.res.status).toBe(200);
    const submitted = await submitCode(browser, flow, code);
    expect(submitted.res.status).toBe(422);
    const settingsId = new URL(submitted.body.redirect_browser_to).searchParams.get('flow')!;

    // Password step.
    const settings = await browser.fetch(
      `${urls.identityPublic}/self-service/settings/flows?id=${settingsId}`,
      {
        headers: { accept: 'application/json' },
      },
    );
    const csrf = settings.body.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const password = await browser.fetch(`${urls.identityPublic}/self-service/settings?flow=${settingsId}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'password', password: PASSWORD, csrf_token: csrf },
    });
    expect(password.res.status, JSON.stringify(password.body)).toBe(200);

    // Terms step: a stale version is refused; the current ones are recorded and complete the invitation.
    const terms = (await browser.fetch(`${urls.users}/terms/current`)).body;
    expect(terms.terms.version).toBe('2026-01');
    const stale = await browser.fetch(`${urls.users}/terms/accept`, {
      method: 'POST',
      headers: { origin: APP },
      json: current('2025-01', '2026-01'),
    });
    expect(stale.res.status).toBe(409);
    const accepted = await browser.fetch(`${urls.users}/terms/accept`, {
      method: 'POST',
      headers: { origin: APP, 'user-agent': 'journey-test' },
      json: current(terms.terms.version, terms.privacy.version),
    });
    expect(accepted.res.status).toBe(200);
    expect(accepted.body).toEqual({ tosAccepted: true });
    const afterTerms = await identityOf(invitation.identityId);
    expect(afterTerms.traits.onboarding.tosAccepted).toBe(true);
    expect(afterTerms.verifiable_addresses[0].verified).toBe(true);
    expect(await status(flow)).toEqual({ state: 'accepted' });
    const listed = (await admin.fetch(`${urls.usersAdmin}/admin/invitations?organisationId=${orgId}`)).body;
    expect(listed.invitations.find((i: any) => i.id === invitation.id).state).toBe('accepted');

    // Source-code host (callback stepper): initialise, authorize at the host, complete with the code.
    const started = await browser.fetch(`${urls.users}/git-auth/initialise`, {
      method: 'POST',
      headers: { origin: APP },
      json: { flow: settingsId },
    });
    expect(started.res.status).toBe(200);
    const page = await fetch(started.body.authenticationUrl);
    const html = await page.text();
    const form = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      form.set(name!, value!.replace(/&amp;/g, '&'));
    }
    form.set('decision', 'allow');
    const authorized = await fetch(new URL('/github/login/oauth/authorize', started.body.authenticationUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      redirect: 'manual',
    });
    const callback = new URL(authorized.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${APP}/account/callback`);
    const linked = await browser.fetch(`${urls.users}/git-auth/complete`, {
      method: 'POST',
      headers: { origin: APP },
      json: { code: callback.searchParams.get('code'), state: callback.searchParams.get('state') },
    });
    expect(linked.res.status).toBe(200);
    expect(linked.body).toEqual({ connected: true, login: 'octo-dev' });
    expect((await identityOf(invitation.identityId)).traits.onboarding.gitProviderConnected).toBe(true);

    // Sign-in with the new password: consent leaves tosAccepted alone while the versions are current…
    await signInThroughConsent(urls.users!, 'newbie@acme.test');
    expect((await identityOf(invitation.identityId)).traits.onboarding.tosAccepted).toBe(true);
    // …and after the terms changed, the next sign-in sends the user to the Terms step.
    const jar = await signInThroughConsent(urls.users2!, 'newbie@acme.test');
    expect((await identityOf(invitation.identityId)).traits.onboarding.tosAccepted).toBe(false);
    const whoami = await jar.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.body.identity.traits.onboarding.tosAccepted).toBe(false);
    const again = await jar.fetch(`${urls.users2}/terms/accept`, {
      method: 'POST',
      headers: { origin: APP },
      json: current('2026-02', '2026-01'),
    });
    expect(again.body).toEqual({ tosAccepted: true });
    expect((await identityOf(invitation.identityId)).traits.onboarding.tosAccepted).toBe(true);

    const exported = await fetch(
      `${urls.usersAdmin}/admin/terms/acceptances?organisationId=${orgId}&format=csv`,
    );
    const csv = await exported.text();
    expect(csv).toContain('newbie@acme.test');
    expect(csv).toContain('journey-test');
  });

  it('a revoked invitation cannot be used: the status says revoked and the identity refuses the code', async () => {
    const { invitation, flow, code } = await invite('revoked@acme.test');
    const revoked = await admin.fetch(`${urls.usersAdmin}/admin/invitations/${invitation.id}/revoke`, {
      method: 'POST',
    });
    expect(revoked.body.state).toBe('revoked');
    expect(await status(flow)).toEqual({ state: 'revoked' });
    const browser = new Jar();
    const submitted = await submitCode(browser, flow, code);
    expect(submitted.res.status).not.toBe(422);
    const whoami = await browser.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.res.status).toBe(401);
  });

  it('a resent invitation works with the new link; the old link reports expired', async () => {
    const first = await invite('resent@acme.test');
    const resent = await admin.fetch(`${urls.usersAdmin}/admin/invitations/${first.invitation.id}/resend`, {
      method: 'POST',
    });
    expect(resent.body).toMatchObject({ state: 'pending', sendCount: 2 });
    const mail = mailer.messages.filter((m) => m.to === 'resent@acme.test');
    expect(mail).toHaveLength(2);
    const link = new URL(/https?:\/\/\S+/.exec(mail[1]!.text)![0]);
    const flow = link.searchParams.get('flow')!;
    expect(flow).not.toBe(first.flow);
    expect(await status(first.flow)).toEqual({ state: 'expired' });
    expect(await status(flow)).toEqual({ state: 'pending' });
    const browser = new Jar();
    const submitted = await submitCode(browser, flow, link.searchParams.get('code')!);
    expect(submitted.res.status).toBe(422);
  });

  const signsIn = async (flow: string, code: string) => {
    const browser = new Jar();
    const submitted = await submitCode(browser, flow, code);
    const whoami = await browser.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    return submitted.res.status === 422 && whoami.res.status === 200;
  };

  it('a superseded invitation link no longer signs in after a resend', async () => {
    const first = await invite('superseded@acme.test');
    const resent = await admin.fetch(`${urls.usersAdmin}/admin/invitations/${first.invitation.id}/resend`, {
      method: 'POST',
    });
    expect(resent.res.status).toBe(200);
    // The first mail's code, in the first mail's flow: refused, and no session.
    expect(await signsIn(first.flow, first.code)).toBe(false);
    const second = new URL(
      /https?:\/\/\S+/.exec(mailer.messages.filter((m) => m.to === 'superseded@acme.test').at(-1)!.text)![0],
    );
    expect(await signsIn(second.searchParams.get('flow')!, second.searchParams.get('code')!)).toBe(true);
  });

  it('a revoked invitation link stays dead when the invitation is resent', async () => {
    const first = await invite('revoked-then-resent@acme.test');
    await admin.fetch(`${urls.usersAdmin}/admin/invitations/${first.invitation.id}/revoke`, {
      method: 'POST',
    });
    await admin.fetch(`${urls.usersAdmin}/admin/invitations/${first.invitation.id}/resend`, {
      method: 'POST',
    });
    expect((await identityOf(first.invitation.identityId)).state).toBe('active');
    expect(await signsIn(first.flow, first.code)).toBe(false);
  });

  it('a resend that crashes before its mail is queued leaves no usable link behind', async () => {
    const first = await invite('crash@acme.test');
    // The same service on the same database, whose outbox fails: the resend dies after the
    // identity service has acted and before the invitation's transaction commits.
    const broken = await startUsers({
      db,
      logger: false,
      mailer: {
        async enqueue() {
          throw new Error('outbox unavailable');
        },
      },
      env: {
        IDENTITY_ADMIN_URL: urls.identityAdmin!,
        IDENTITY_PUBLIC_URL: urls.identityPublic!,
        OAUTH2_ADMIN_URL: urls.oauth2Admin!,
        USERS_PUBLIC_PORT: '0',
        USERS_ADMIN_PORT: '0',
        USERS_MANAGEMENT_PORT: '0',
      },
    });
    try {
      const failed = await admin.fetch(
        `${broken.urls.admin}/admin/invitations/${first.invitation.id}/resend`,
        {
          method: 'POST',
        },
      );
      expect(failed.res.status).toBe(500);
    } finally {
      await broken.close();
    }
    expect(mailer.messages.filter((m) => m.to === 'crash@acme.test')).toHaveLength(1);
    expect(await signsIn(first.flow, first.code)).toBe(false);
    // The operator retries; the retried link works.
    const retried = await admin.fetch(`${urls.usersAdmin}/admin/invitations/${first.invitation.id}/resend`, {
      method: 'POST',
    });
    expect(retried.body).toMatchObject({ state: 'pending', sendCount: 2 });
    const link = new URL(
      /https?:\/\/\S+/.exec(mailer.messages.filter((m) => m.to === 'crash@acme.test').at(-1)!.text)![0],
    );
    expect(await signsIn(link.searchParams.get('flow')!, link.searchParams.get('code')!)).toBe(true);
  });
});
