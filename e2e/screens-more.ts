import type { Page } from 'playwright-core';
import { DEMO_FABRIKAM_PASSWORD, DEMO_NORTHWIND_PASSWORD } from '@acme/dev';
import { ssoDe } from '../apps/account/src/features/admin-console/i18n/sso.de.ts';
import { ssoEn } from '../apps/account/src/features/admin-console/i18n/sso.en.ts';
import { de as flowDe } from '../services/identity/src/ui/messages.de.ts';
import { en as flowEn } from '../services/identity/src/ui/messages.en.ts';
import type { SystemUrls } from './browser.ts';
import {
  createUser,
  identityAdmin,
  organisationWithMember,
  ssoOrganisation,
  type TestUser,
} from './fixtures.ts';
import { EXPIRING_DEVICE_CLIENT } from './global-setup.ts';
import { waitOrSayWhere } from './journeys.ts';
import { codeIn, newestMail } from './mailbox.ts';
import { noAutofill, virtualAuthenticator } from './webauthn.ts';
import {
  button,
  deviceCode,
  fill,
  forgetCookies,
  freshLogin,
  heading,
  signOut,
  T,
  text,
  typeEmail,
  type Reacher,
  type Texts,
} from './screens.ts';

// The screens the other reachers (screens.ts) do not pass through: the later steps of "Forgot
// password", a device denied and a device code expired, a security key in the settings and on the
// 2FA step, the login's "Verify your email address" step, the SSO step's redirect loop, the
// break-glass password step refusing a member, a product's Access Denied page, the console's SSO
// test pop-up, and Microsoft 365's "not connected" and "admin consent required". One browser, in either language; each screen is checked by LanguageCheck
// (accessibility.e2e.ts).

/** The demo system's support address, which the Access Denied page names. */
const SUPPORT = 'support@acme.test';

/** The person these screens follow: a fresh member of the demo organisation. */
const people = new WeakMap<Page, TestUser>();
const person = (page: Page): TestUser => {
  const found = people.get(page);
  if (!found) throw new Error('no person has recovered a password in this browser yet');
  return found;
};

/** The Password step: the password, then Continue. */
export async function typePassword(page: Page, texts: Texts, password: string): Promise<void> {
  const field = page.getByLabel(texts.login.password.passwordLabel, { exact: true });
  await waitOrSayWhere(page, field, 'no Password step after the Email step');
  await field.fill(password);
  await button(page, texts.common.continue).click();
}

/** SSO bookkeeping cookies, as a redirect loop or a return from the provider leaves them (per host, not per port). */
async function ssoCookies(page: Page, urls: SystemUrls, values: Record<string, string>): Promise<void> {
  const domain = new URL(urls.platform).hostname;
  await page
    .context()
    .addCookies(Object.entries(values).map(([name, value]) => ({ name, value, domain, path: '/' })));
}

/** Forgot password with the mailed code: the code step, the new password, then a sign-in with it. */
const recoveryScreens: Reacher = async (check, { page, urls, texts }) => {
  const me = await createUser(urls);
  people.set(page, me);
  await page.goto(`${urls.platform}/account/forgot-password`);
  await page.getByLabel(texts.login.email.emailLabel, { exact: true }).fill(me.email);
  await button(page, texts.common.continue).click();
  const code = page.getByPlaceholder(texts.forgotPassword.codePlaceholder);
  await check.screen('forgot password: code', async () => {
    await heading(page, texts.forgotPassword.codeTitle);
    await code.waitFor(T);
  });
  // The mail's language is the person's own (any subject naming the recovery code).
  await code.fill(codeIn(await newestMail(urls, me.email, undefined, /recovery code|wiederherstellung/i)));
  await button(page, texts.common.continue).click();
  await check.screen('forgot password: new password', async () => {
    await heading(page, texts.forgotPassword.passwordTitle);
    await page.getByLabel(texts.password.confirmLabel, { exact: true }).waitFor(T);
  });
  me.password = `Recovered-${Date.now()}!x`;
  await page.getByLabel(texts.password.label, { exact: true }).fill(me.password);
  await page.getByLabel(texts.password.confirmLabel, { exact: true }).fill(me.password);
  await button(page, texts.common.continue).click();
  // The reset ends the recovery session and starts a fresh sign-in (no address remembered): the
  // login page once it has its login challenge and has put it away.
  await page.waitForURL(/login_challenge=/, T);
  await page.waitForURL((u) => u.pathname === '/account/login' && !u.searchParams.has('login_challenge'), T);
  await heading(page, texts.login.email.title);
  await typeEmail(page, texts, me.email);
  await typePassword(page, texts, me.password);
  await page.waitForURL(`${urls.platform}/research`, T);
};

/** Signed in: a device denied, then a device whose code expired before it was entered. */
const deviceScreens: Reacher = async (check, { page, urls, texts }) => {
  await check.screen('device: denied', async () => {
    await page.goto(await deviceCode(urls));
    await button(page, texts.common.continue).click(T);
    await button(page, texts.device.deny).click(T);
    await heading(page, texts.device.failedHeading);
    await text(page, texts.device.failed.denied);
  });
  // The journeys' expiring device client: its codes live 3 s (global-setup.ts).
  const expired = await deviceCode(urls, EXPIRING_DEVICE_CLIENT);
  await page.waitForTimeout(4_000);
  await check.screen('device: code expired', async () => {
    await page.goto(expired);
    await button(page, texts.common.continue).click(T);
    await text(page, texts.device.failed.expired);
    await page.getByRole('link', { name: texts.device.startAgain, exact: true }).waitFor(T);
  });
};

/**
 * A security key (Chromium's virtual USB key) added in the account settings, then asked for on the
 * 2FA step of the next sign-in; it signs in.
 */
const securityKeyScreens: Reacher = async (check, { page, urls, texts }) => {
  const me = person(page);
  // No passkey autofill: the Email step would otherwise hold a WebAuthn request of its own.
  await noAutofill(page);
  await virtualAuthenticator(page.context(), page, 'usb');
  const keys = page.getByTestId('security-keys');
  await check.screen('settings: a security key', async () => {
    await page.goto(`${urls.platform}/account/settings`);
    await heading(page, texts.settings.title);
    await keys.getByLabel(texts.securityKeys.name, { exact: true }).fill('YubiKey');
    await keys.getByRole('button', { name: texts.securityKeys.add, exact: true }).click();
    await text(page, texts.securityKeys.added);
    await keys.getByTestId('security-key').getByText('YubiKey').waitFor(T);
  });
  await signOut(page, urls, texts);
  await typeEmail(page, texts, me.email);
  await typePassword(page, texts, me.password);
  await check.screen('2FA step with a security key', async () => {
    await heading(page, texts.login.mfa.title);
    await button(page, texts.passkeys.securityKey).waitFor(T);
  });
  await button(page, texts.passkeys.securityKey).click();
  await page.waitForURL(`${urls.platform}/research`, T);
};

/**
 * A person past the second-factor grace period signs in: the login page asks to set up 2FA (no
 * token yet). Their address no longer verified (as after an administrator's change), the same page
 * asks to verify it first.
 */
const unverifiedScreens: Reacher = async (check, { page, urls, texts }) => {
  const other = await createUser(urls);
  const admin = identityAdmin(urls);
  await admin.patchIdentity(other.identityId, [
    { op: 'replace', path: '/traits/onboarding/mfaSetupDeadline', value: '2020-01-01T00:00:00.000Z' },
  ]);
  await freshLogin(page, urls);
  await typeEmail(page, texts, other.email);
  await typePassword(page, texts, other.password);
  await check.screen('login: 2FA set-up required', async () => {
    await heading(page, texts.login.mfaSetup.titleReset);
    await page.getByLabel(texts.login.mfaSetup.installedCheckbox, { exact: true }).waitFor(T);
  });
  await admin.patchIdentity(other.identityId, [
    { op: 'replace', path: '/verifiable_addresses/0/verified', value: false },
  ]);
  await check.screen('login: verify your email', async () => {
    await page.reload();
    await heading(page, texts.login.emailConfirmation.title);
    await text(page, other.email);
    // The login's own step (its heading is also the verification page's): its link to that page.
    await page.getByRole('link', { name: texts.login.emailConfirmation.verifyNow, exact: true }).waitFor(T);
  });
};

/** Signed out: the SSO step finds a redirect loop, with tries left and with none. */
const redirectLoopScreens: Reacher = async (check, { page, urls, texts }) => {
  const alert = page.getByRole('alert').filter({ hasText: texts.login.sso.redirectLoop });
  await freshLogin(page, urls);
  await ssoCookies(page, urls, { sso_redirects: '6' });
  await check.screen('SSO: redirect loop', async () => {
    await typeEmail(page, texts, 'hopper@globex.test');
    await alert.waitFor(T);
    await button(page, texts.login.sso.tryAgain).waitFor(T);
  });
  await ssoCookies(page, urls, { sso_redirects: '6', sso_tries: '3' });
  await check.screen('SSO: redirect loop, no tries left', async () => {
    await page.goto(`${urls.platform}/account/login`);
    await alert.waitFor(T);
    // One paragraph with the support contact after it.
    await page.getByText(texts.login.sso.loopFinal).first().waitFor(T);
  });
  await button(page, texts.login.useAnotherEmail).click();
  await heading(page, texts.login.email.title);
};

/**
 * SSO enforced: from the SSO step (back from the provider, so it waits on Proceed) a member who is
 * not the break-glass admin takes "Sign in with a password" and is refused on the Password step.
 */
const breakGlassScreen: Reacher = async (check, { page, urls, lang, texts }) => {
  const { member, enforce } = await ssoOrganisation(urls);
  await enforce();
  await freshLogin(page, urls);
  const lock = JSON.stringify({ id: 'screens-lock', expiresAt: Date.now() + 5 * 60_000 });
  await ssoCookies(page, urls, { sso_redirect_lock: encodeURIComponent(lock) });
  await typeEmail(page, texts, member.email);
  await button(page, texts.login.sso.usePassword).click(T);
  await heading(page, texts.login.password.title);
  await typePassword(page, texts, member.password);
  await check.screen('break-glass: password refused', async () => {
    const refused = { en: flowEn, de: flowDe }[lang].ssoEnforced;
    await page.getByRole('main').getByRole('alert').filter({ hasText: refused }).waitFor(T);
    await heading(page, texts.login.password.title);
  });
  await button(page, texts.login.password.back).click();
  await heading(page, texts.login.email.title);
};

/** A member of an organisation without MAGIC signs in to MAGIC: its Access Denied page. */
const productDeniedScreen: Reacher = async (check, { page, urls, texts }) => {
  const member = await organisationWithMember(urls, {
    products: ['Platform'],
    subscriptionStatus: 'subscribed',
  });
  await forgetCookies(page);
  await page.goto(`${urls.magic}/`);
  await page.waitForURL(/\/account\/login/, T);
  await typeEmail(page, texts, member.email);
  await typePassword(page, texts, member.password);
  await check.screen('access denied (product)', async () => {
    await page.waitForURL(`${urls.magic}/research`, T);
    await heading(page, texts.accessDenied.title);
    await text(page, fill(texts.accessDenied.product, { product: 'MAGIC', email: SUPPORT }));
  });
};

/** The console's Test sign-in pop-up (admin application) opened on its own: it says where it belongs. */
const ssoTestPopupScreen: Reacher = async (check, { page, urls, lang }) => {
  const sso = { en: ssoEn, de: ssoDe }[lang];
  await check.screen('console: SSO test pop-up', async () => {
    await page.goto(`${urls.apps.admin}/admin/sso/test-callback`);
    await heading(page, sso.callbackTitle);
    await text(page, sso.callbackNoOpener);
  });
};

/** MAGIC's Microsoft 365 login: Continue, then the Entra stand-in's page in the pop-up (not ours: English). */
export async function m365SignIn(
  page: Page,
  urls: SystemUrls,
  texts: Texts,
  email: string,
  password: string,
): Promise<void> {
  await forgetCookies(page);
  await page.goto(`${urls.magic}/account/m365-login`);
  await heading(page, texts.m365.loginTitle);
  const popup = page.waitForEvent('popup');
  await button(page, texts.common.continue).click();
  const entra = await popup;
  await entra.getByLabel('Email').fill(email);
  await entra.getByLabel('Password').fill(password);
  await entra.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Microsoft 365 on MAGIC, people of the demo's tenants (only read here): Fabrikam's, whose
 * organisation has no subscription, are told the account is not connected; Northwind's, whose
 * administrator has not consented, that an administrator must.
 */
const m365Screens: Reacher = async (check, { page, urls, texts }) => {
  await m365SignIn(page, urls, texts, 'alex@fabrikam.test', DEMO_FABRIKAM_PASSWORD);
  await check.screen('m365: not connected', async () => {
    await heading(page, texts.m365.notConnectedTitle);
    await page.getByRole('link', { name: texts.m365.setUpSubscription, exact: true }).waitFor(T);
  });
  await m365SignIn(page, urls, texts, 'lee@northwind.test', DEMO_NORTHWIND_PASSWORD);
  await check.screen('m365: admin consent required', async () => {
    await heading(page, texts.m365.consentTitle);
    await text(page, fill(texts.m365.consentText, { appName: 'MAGIC' }));
  });
};

/** In order: each leaves the browser where the next starts. */
export const moreScreens: readonly Reacher[] = [
  recoveryScreens,
  deviceScreens,
  securityKeyScreens,
  unverifiedScreens,
  redirectLoopScreens,
  breakGlassScreen,
  productDeniedScreen,
  ssoTestPopupScreen,
  m365Screens,
];
