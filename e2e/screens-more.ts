import type { Page } from 'playwright-core';
import type { SystemUrls } from './browser.ts';
import { createUser, identityAdmin, organisationWithMember, type TestUser } from './fixtures.ts';
import { EXPIRING_DEVICE_CLIENT } from './global-setup.ts';
import { codeIn, newestMail } from './mailbox.ts';
import {
  button,
  deviceCode,
  fill,
  freshLogin,
  heading,
  T,
  text,
  typeEmail,
  type Reacher,
  type Texts,
} from './screens.ts';

// The screens the other reachers (screens.ts) do not pass through: the later steps of "Forgot
// password", a device denied and a device code expired, the login's "Verify your email address"
// step, the SSO step's redirect loop and a product's Access Denied page. One browser, in either
// language; each screen is checked by LanguageCheck (accessibility.e2e.ts).

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
async function typePassword(page: Page, texts: Texts, password: string): Promise<void> {
  await page.getByLabel(texts.login.password.passwordLabel, { exact: true }).fill(password);
  await button(page, texts.common.continue).click();
}

/** SSO bookkeeping cookies as a redirect loop leaves them (cookies are per host, not per port). */
async function loopCookies(page: Page, urls: SystemUrls, values: Record<string, string>): Promise<void> {
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
  await code.fill(codeIn(await newestMail(urls, me.email)));
  await button(page, texts.common.continue).click();
  await check.screen('forgot password: new password', async () => {
    await heading(page, texts.forgotPassword.passwordTitle);
    await page.getByLabel(texts.password.confirmLabel, { exact: true }).waitFor(T);
  });
  me.password = `Recovered-${Date.now()}!x`;
  await page.getByLabel(texts.password.label, { exact: true }).fill(me.password);
  await page.getByLabel(texts.password.confirmLabel, { exact: true }).fill(me.password);
  await button(page, texts.common.continue).click();
  await page.waitForURL(/\/account\/login/, T);
  await freshLogin(page, urls);
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
 * Signed in, the address no longer verified (as after an administrator's change): the login page
 * asks to verify it.
 */
const unverifiedScreen: Reacher = async (check, { page, urls, texts }) => {
  const me = person(page);
  await identityAdmin(urls).patchIdentity(me.identityId, [
    { op: 'replace', path: '/verifiable_addresses/0/verified', value: false },
  ]);
  await check.screen('login: verify your email', async () => {
    await page.goto(`${urls.platform}/account/login`);
    await typeEmail(page, texts, me.email);
    await heading(page, texts.login.emailConfirmation.title);
    await text(page, me.email);
  });
};

/** Signed out: the SSO step finds a redirect loop, with tries left and with none. */
const redirectLoopScreens: Reacher = async (check, { page, urls, texts }) => {
  const alert = page.getByRole('alert').filter({ hasText: texts.login.sso.redirectLoop });
  await freshLogin(page, urls);
  await loopCookies(page, urls, { sso_redirects: '6' });
  await check.screen('SSO: redirect loop', async () => {
    await typeEmail(page, texts, 'hopper@globex.test');
    await alert.waitFor(T);
    await button(page, texts.login.sso.tryAgain).waitFor(T);
  });
  await loopCookies(page, urls, { sso_redirects: '6', sso_tries: '3' });
  await check.screen('SSO: redirect loop, no tries left', async () => {
    await page.goto(`${urls.platform}/account/login`);
    await alert.waitFor(T);
    await text(page, texts.login.sso.loopFinal);
  });
  await button(page, texts.login.useAnotherEmail).click();
  await heading(page, texts.login.email.title);
};

/** A member of an organisation without MAGIC signs in to MAGIC: its Access Denied page. */
const productDeniedScreen: Reacher = async (check, { page, urls, texts }) => {
  const member = await organisationWithMember(urls, { products: ['Platform'], subscriptionStatus: 'subscribed' });
  await page.context().clearCookies();
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

/** In order: each leaves the browser where the next starts. */
export const moreScreens: readonly Reacher[] = [
  recoveryScreens,
  deviceScreens,
  unverifiedScreen,
  redirectLoopScreens,
  productDeniedScreen,
];
