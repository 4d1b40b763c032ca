import { randomBytes } from 'node:crypto';
import { DEMO_CONTOSO_PASSWORD } from '@acme/dev';
import { ssoDe } from '../apps/account/src/features/admin-console/i18n/sso.de.ts';
import { ssoEn } from '../apps/account/src/features/admin-console/i18n/sso.en.ts';
import { de as flowDe } from '../services/identity/src/ui/messages.de.ts';
import { en as flowEn } from '../services/identity/src/ui/messages.en.ts';
import type { SystemUrls } from './browser.ts';
import { adminJson, createUser, invite } from './fixtures.ts';
import { m365SignIn, typePassword } from './screens-more.ts';
import {
  acceptTerms,
  button,
  fill,
  forgetCookies,
  freshLogin,
  heading,
  hold,
  signOut,
  T,
  teamsFrame,
  text,
  typeEmail,
  type Reacher,
} from './screens.ts';
import { noAutofill, virtualAuthenticator } from './webauthn.ts';

// The screens neither screens.ts nor screens-more.ts passes through: self sign-up refused for an
// address and closed altogether; Microsoft 365's Final Step of a marketplace purchase (activating,
// then "already subscribed") and its deactivated account (page and Teams); the screens shown only
// on the way ("Signing you in…" while the login flow, the consent and the token exchange are on
// their way, and while the user service signs a Microsoft 365 person in); the console's SSO test
// pop-up's page once it has the provider's answer; the GitHub link step of callback onboarding
// (and the host's refusal); and, for a person with a passkey, the Password confirmation that offers
// it and the Email step while the passkey's answer is on its way. One browser, in either language;
// each screen is checked by LanguageCheck (accessibility.e2e.ts).

const MEGAN = 'megan@contoso.test';

/** Opens (or closes) self sign-up for the organisation `id`, as the operator does. */
const setSignUp = (urls: SystemUrls, id: string, enabled: boolean) =>
  adminJson(`${urls.usersAdmin}/admin/organisations/${id}/self-signup`, {
    method: 'PUT',
    body: JSON.stringify({ enabled }),
  });

/**
 * Until the identity service starts registration flows (`open`) or refuses them as disabled: it
 * holds the user service's answer to "is any organisation open" for IDENTITY_SIGNUP_OPEN_CACHE
 * (1 s in the journeys' system, global-setup.ts).
 */
async function registrationIs(urls: SystemUrls, open: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${urls.identityPublic}/self-service/registration/api`);
    if (res.ok === open) return;
    if (Date.now() > deadline) throw new Error(`registration did not become ${open ? 'open' : 'closed'}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Self sign-up, open for an organisation of its own: an address outside every open organisation is
 * refused on the form. Then every organisation's sign-up closed, the page says sign-up is not open;
 * the organisation opened again after it (the others' journeys made their own).
 */
const signUpRefusedScreens: Reacher = async (check, { page, urls, lang, texts }) => {
  const tag = randomBytes(4).toString('hex');
  const org = await adminJson<{ id: string }>(`${urls.usersAdmin}/admin/organisations`, {
    method: 'POST',
    body: JSON.stringify({
      name: `Refused ${tag}`,
      domains: [`refused-${tag}.test`],
      products: ['Platform'],
    }),
  });
  await setSignUp(urls, org.id, true);
  await registrationIs(urls, true);
  await check.screen('sign-up: not open for the address', async () => {
    await freshLogin(page, urls);
    await page.goto(`${urls.platform}/account/registration`);
    await heading(page, texts.registration.heading);
    await page.getByLabel(texts.registration.emailLabel, { exact: true }).fill(`someone-${tag}@acme.test`);
    await page.getByLabel(texts.registration.firstNameLabel, { exact: true }).fill('Ada');
    await page.getByLabel(texts.registration.lastNameLabel, { exact: true }).fill('Lovelace');
    await page.getByLabel(texts.registration.passwordLabel, { exact: true }).fill(`Refused-${tag}-2026!`);
    await button(page, texts.registration.submit).click();
    await text(page, { en: flowEn, de: flowDe }[lang].signUpNotOpen);
  });
  const { organisations } = await adminJson<{ organisations: { id: string }[] }>(
    `${urls.usersAdmin}/admin/organisations`,
  );
  const open: string[] = [];
  for (const { id } of organisations) {
    const setting = await adminJson<{ enabled: boolean }>(
      `${urls.usersAdmin}/admin/organisations/${id}/self-signup`,
    );
    if (setting.enabled) open.push(id);
  }
  for (const id of open) await setSignUp(urls, id, false);
  try {
    await registrationIs(urls, false);
    await check.screen('sign-up closed', async () => {
      await page.goto(`${urls.platform}/account/registration`);
      await heading(page, texts.registration.closedHeading);
      await text(page, texts.registration.closedText);
    });
  } finally {
    for (const id of open) await setSignUp(urls, id, true);
    await registrationIs(urls, true);
  }
};

/** Megan's user id in the user service (Contoso's member). */
async function meganId(urls: SystemUrls): Promise<string> {
  const { organisations } = await adminJson<{ organisations: { id: string; name: string }[] }>(
    `${urls.usersAdmin}/admin/organisations`,
  );
  const contoso = organisations.find((o) => o.name === 'Contoso');
  if (!contoso) throw new Error('the demo organisation Contoso was not seeded');
  const { users } = await adminJson<{ users: { id: string; email: string }[] }>(
    `${urls.usersAdmin}/admin/users?organisationId=${contoso.id}`,
  );
  const megan = users.find((u) => u.email === MEGAN);
  if (!megan) throw new Error(`${MEGAN} is not a user of Contoso`);
  return megan.id;
}

/**
 * Microsoft 365 on MAGIC: Megan (Contoso's Owner) buys the offer on the marketplace stand-in: the
 * Final Step, activating while the user service is asked, then "already subscribed" (Contoso is;
 * nothing changes). Megan deactivated by the operator: the m365 login says so, and so does MAGIC in
 * Teams; she is reactivated after.
 */
const marketplaceScreens: Reacher = async (check, { page, urls, texts }) => {
  const { landingUrl } = await adminJson<{ landingUrl: string }>(`${urls.marketplace}/_dev/purchases`, {
    method: 'POST',
    body: JSON.stringify({ email: MEGAN }),
  });
  await forgetCookies(page);
  await page.goto(landingUrl);
  const finalStep = page.getByRole('heading', { name: texts.callbackOnboarding.finalStep, exact: true });
  const atEntra = (u: URL) => u.origin === urls.entra;
  await Promise.race([page.waitForURL(atEntra, T), finalStep.waitFor(T)]);
  // No Microsoft account in this browser yet: the Final Step signs in by redirect first.
  if (atEntra(new URL(page.url()))) {
    await page.getByLabel('Email').fill(MEGAN);
    await page.getByLabel('Password').fill(DEMO_CONTOSO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await check.screen('marketplace: Final Step', async () => {
    await finalStep.waitFor(T);
    await page.getByTestId('signing-up-as').getByText(MEGAN).waitFor(T);
  });
  for (const box of await page.getByRole('checkbox').all()) await box.check();
  const activation = await hold(page, '**/m365/marketplace/activate');
  await button(page, texts.common.continue).click();
  await check.screen('marketplace: activating', () => text(page, texts.m365.activating));
  await activation();
  await check.screen('marketplace: already subscribed', () =>
    heading(page, texts.m365.alreadySubscribedTitle),
  );

  const id = await meganId(urls);
  await adminJson(`${urls.usersAdmin}/admin/users/${id}/deactivate`, { method: 'POST', body: '{}' });
  try {
    await m365SignIn(page, urls, texts, MEGAN, DEMO_CONTOSO_PASSWORD);
    await check.screen('m365: account deactivated', async () => {
      await page.getByRole('alert').filter({ hasText: texts.m365.accountInactive }).waitFor(T);
      await heading(page, texts.m365.loginTitle);
    });
    const frame = await teamsFrame(page, urls, `user=${MEGAN}`);
    await check.screen(
      'Teams: account deactivated',
      async () => {
        await heading(frame, texts.m365.errorTitle);
        await text(frame, texts.m365.accountInactive);
      },
      frame,
    );
  } finally {
    await adminJson(`${urls.usersAdmin}/admin/users/${id}/reactivate`, { method: 'POST', body: '{}' });
  }
};

/** The identity service's refresh flow, as a change without a recent sign-in asks for it: Password confirmation. */
const passwordConfirmation = (urls: SystemUrls, returnTo: string) =>
  `${urls.identityPublic}/self-service/login/browser?${new URLSearchParams({ refresh: 'true', return_to: returnTo }).toString()}`;

/**
 * The screens on the way, each held there by holding the browser's request it waits for: the
 * callback of a password sign-in, the consent page of another organisation's application, the
 * login page while the flow of a password confirmation is read, and MAGIC's m365 login while the
 * user service signs Megan in.
 */
const onTheWayScreens: Reacher = async (check, { page, urls, texts, consent }) => {
  const me = await createUser(urls);
  await freshLogin(page, urls);
  await typeEmail(page, texts, me.email);
  const token = await hold(page, '**/oauth2/token');
  await typePassword(page, texts, me.password);
  await check.screen('callback: signing in', async () => {
    await page.waitForURL(/\/account\/callback/, T);
    await text(page, texts.progress.signingIn);
  });
  await token();
  await page.waitForURL(`${urls.platform}/research`, T);
  // Another organisation's application asks: the consent page while the user service is asked.
  const consentAsked = await hold(page, /\/login\/consent/);
  await check.screen('consent: signing in', async () => {
    await page.goto(`${urls.demoApp}/`);
    await page.getByRole('link', { name: 'Sign in with the platform' }).click();
    await page.waitForURL(/\/account\/consent/, T);
    await text(page, texts.progress.signingIn);
  });
  await consentAsked();
  await heading(page, fill(consent.title, { app: 'Demo third-party app' }));
  const flow = await hold(page, /\/self-service\/login\/flows\?/);
  await check.screen('login: signing in (flow on its way)', async () => {
    await page.goto(passwordConfirmation(urls, `${urls.platform}/research`));
    await page.waitForURL(/\/account\/login\?flow=/, T);
    await text(page, texts.progress.signingIn);
  });
  await flow();
  await heading(page, texts.login.passwordConfirmation.title);

  const backend = await hold(page, '**/m365/login');
  await m365SignIn(page, urls, texts, MEGAN, DEMO_CONTOSO_PASSWORD);
  await check.screen('m365: signing in with Microsoft', () => text(page, texts.m365.signingIn));
  await backend();
  await page.waitForURL(`${urls.magic}/research`, T);
};

/**
 * The console's Test sign-in pop-up once the provider has answered: it hands the answer over and
 * closes itself. Opened here after another page (two entries in its history, not opened by a
 * script), the browser keeps it open, and its page stays.
 */
const ssoTestAnswerScreen: Reacher = async (check, { page, urls, lang }) => {
  const sso = { en: ssoEn, de: ssoDe }[lang];
  await check.screen('console: SSO test pop-up, answered', async () => {
    await page.goto(`${urls.apps.admin}/account/privacy`);
    const answer = new URLSearchParams({ code: randomBytes(8).toString('hex'), state: 'screens' });
    await page.goto(`${urls.apps.admin}/admin/sso/test-callback?${answer.toString()}`);
    await heading(page, sso.callbackTitle);
    await text(page, sso.callbackDone);
  });
};

/**
 * An invited GitHub user's onboarding (password, 2FA skipped, terms), then the callback's GitHub
 * link step; Cancel on the host's authorize page shows its refusal on the step.
 */
const gitLinkScreens: Reacher = async (check, { page, urls, texts }) => {
  const invited = await invite(urls, { isGitUser: true });
  const password = `Git-${randomBytes(6).toString('hex')}!1`;
  await freshLogin(page, urls);
  await page.goto(invited.link);
  await heading(page, texts.onboarding.passwordTitle);
  await page.getByPlaceholder(texts.password.create).fill(password);
  await page.getByPlaceholder(texts.password.reenter).fill(password);
  await button(page, texts.common.continue).click();
  await button(page, texts.login.mfaSetup.skip).click(T);
  await heading(page, texts.onboarding.termsTitle);
  await acceptTerms(page, texts);
  const linkStep = page.getByRole('heading', { name: texts.callbackOnboarding.gitTitle, exact: true });
  const confirm = page.getByRole('heading', { name: texts.login.passwordConfirmation.title, exact: true });
  await Promise.race([linkStep.waitFor({ timeout: 45_000 }), confirm.waitFor({ timeout: 45_000 })]);
  if (await confirm.isVisible()) await typePassword(page, texts, password);
  const authenticate = button(page, texts.callbackOnboarding.authenticate);
  await check.screen('callback: link GitHub', async () => {
    await linkStep.waitFor(T);
    await authenticate.waitFor(T);
    await page.getByText(invited.email).first().waitFor(T);
  });
  await authenticate.click();
  await page.waitForURL(/\/github\/login\/oauth\/authorize/, T);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await check.screen('callback: GitHub link refused', async () => {
    // The host's own error description (English, as GitHub sends it).
    await page.getByText('The user has denied your application access.').first().waitFor(T);
    await linkStep.waitFor(T);
  });
};

/**
 * A person with a passkey (Chromium's virtual platform authenticator; no autofill): added in the
 * settings; the Password confirmation offers it; signed out, "Sign in with a passkey" on the Email
 * step while the passkey's answer is on its way to the identity service, then signed in.
 */
const passkeyScreens: Reacher = async (check, { page, urls, texts }) => {
  const me = await createUser(urls);
  await noAutofill(page);
  await virtualAuthenticator(page.context(), page);
  await freshLogin(page, urls);
  await typeEmail(page, texts, me.email);
  await typePassword(page, texts, me.password);
  await page.waitForURL(`${urls.platform}/research`, T);
  const settings = `${urls.platform}/account/settings`;
  await page.goto(settings);
  await page.getByLabel(texts.passkeys.name, { exact: true }).fill('Laptop');
  await button(page, texts.passkeys.add).click();
  await text(page, texts.passkeys.added);
  await check.screen('password confirmation with a passkey', async () => {
    await page.goto(passwordConfirmation(urls, settings));
    await heading(page, texts.login.passwordConfirmation.title);
    await button(page, texts.passkeys.confirm).waitFor(T);
  });
  await button(page, texts.passkeys.confirm).click();
  await page.waitForURL(settings, T);
  await signOut(page, urls, texts);
  const submit = /\/self-service\/login\?flow=/;
  const answer = await hold(page, submit);
  const sent = page.waitForRequest(submit, T);
  await button(page, texts.passkeys.signIn).click();
  await check.screen('login: passkey sign-in on its way', async () => {
    await sent;
    await heading(page, texts.login.email.title);
  });
  await answer();
  await page.waitForURL(`${urls.platform}/research`, T);
};

/** In order: each leaves the browser where the next starts (the passkey's authenticator stays last). */
export const restScreens: readonly Reacher[] = [
  signUpRefusedScreens,
  onTheWayScreens,
  marketplaceScreens,
  ssoTestAnswerScreen,
  gitLinkScreens,
  passkeyScreens,
];
