import { randomBytes } from 'node:crypto';
import type { Frame, Page } from 'playwright-core';
import { DEMO_CONTOSO_PASSWORD } from '@acme/dev';
import { totpCode } from '@acme/test-kit/totp';
import { consentDe } from '../apps/account/src/features/consent/i18n/consent.de.ts';
import { consentEn } from '../apps/account/src/features/consent/i18n/consent.en.ts';
import { appDe } from '../apps/account/src/i18n/app.de.ts';
import { appEn } from '../apps/account/src/i18n/app.en.ts';
import { axeEverywhere } from './axe.ts';
import type { SystemUrls, useBrowser } from './browser.ts';
import { adminJson, invite, organisationWithMember } from './fixtures.ts';
import { brokenWords, scrollsSideways } from './layout.ts';
import { codeIn, newestMail } from './mailbox.ts';

// The screens beyond the first sign-in, reached in one browser in either language with the texts
// of that language's catalogue (no English label is assumed): each is checked to be in its language
// (`<html lang>` and a text of its catalogue, shown), to fit 320 px (no sideways scrolling, no word
// broken inside), then axe looks at it at 320 and 1280 px, light and dark (accessibility.e2e.ts).

export type Texts = typeof appEn | typeof appDe;
type ConsentTexts = typeof consentEn | typeof consentDe;

/** A catalogue message with its `{name}` values filled in (English keeps a parametrised message as `[text, ...names]`). */
export function fill(message: string | readonly string[], values: Record<string, string> = {}): string {
  const text = typeof message === 'string' ? message : (message[0] ?? '');
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Collects axe's findings per screen, after checking the screen is in the language it should be. */
export class LanguageCheck {
  readonly found: string[] = [];
  private readonly page: Page;
  private readonly lang: string;
  constructor(page: Page, lang: string) {
    this.page = page;
    this.lang = lang;
  }

  /** `shown` is what the screen shows in its language; the page (or the Teams app `frame`) must say `lang`. */
  async screen(name: string, shown: () => Promise<void>, frame?: Frame): Promise<void> {
    await shown();
    const lang = await (frame ?? this.page).locator('html').getAttribute('lang');
    if (lang !== this.lang) this.found.push(`${this.lang} ${name}: <html lang="${lang}">`);
    if (!frame) {
      // At 320 px (German's long words): no sideways scrolling, no word broken where a line could hold it.
      await this.page.setViewportSize({ width: 320, height: 800 });
      const at = `${this.lang} ${name} @320`;
      const sideways = await scrollsSideways(this.page);
      if (sideways) this.found.push(`${at}: ${sideways}`);
      for (const word of await brokenWords(this.page))
        this.found.push(`${at}: a word broken inside (${word})`);
    }
    this.found.push(
      ...(await axeEverywhere(this.page, `${this.lang} ${name}`, frame ? 'iframe#app' : undefined)),
    );
  }
}

interface Reach {
  page: Page;
  urls: SystemUrls;
  lang: 'en' | 'de';
  texts: Texts;
  consent: ConsentTexts;
}

export type Reacher = (check: LanguageCheck, reach: Reach) => Promise<void>;

/** The two languages the screens are walked in: tag, browser locale, the app's and consent's catalogues. */
export const LANGUAGES = [
  ['en', 'en-US', appEn, consentEn],
  ['de', 'de-DE', appDe, consentDe],
] as const;

/**
 * Walks `reachers` in order in one new browser context of `lang` (each leaves the browser where the
 * next starts) and answers what LanguageCheck found on the way.
 */
export async function walkScreens(
  browser: ReturnType<typeof useBrowser>,
  urls: SystemUrls,
  [lang, locale, texts, consent]: (typeof LANGUAGES)[number],
  reachers: readonly Reacher[],
): Promise<string[]> {
  const { context, page } = await browser.newPage({ locale });
  const screens = new LanguageCheck(page, lang);
  for (const reach of reachers) await reach(screens, { page, urls, lang, texts, consent });
  await context.close();
  return screens.found;
}

export const T = { timeout: 30_000 };
export const heading = (page: Page | Frame, name: string) =>
  page.getByRole('heading', { name, exact: true }).first().waitFor(T);
export const text = (page: Page | Frame, shown: string) =>
  page.getByText(shown, { exact: true }).first().waitFor(T);
export const button = (page: Page | Frame, name: string) => page.getByRole('button', { name, exact: true });

/** The person these screens follow: made by self sign-up, later with a second factor. */
interface Person {
  email: string;
  password: string;
  secret: string;
  backupCodes: string[];
}
const people = new WeakMap<Page, Person>();
const person = (page: Page): Person => {
  const found = people.get(page);
  if (!found) throw new Error('no person has signed up in this browser yet');
  return found;
};

/**
 * Leaves the app, then forgets the browser's cookies: a page of the app still open could answer its
 * cookies going with a navigation of its own, which aborts the next `goto` (net::ERR_ABORTED, seen
 * in a full run). On about:blank nothing of the app runs.
 */
export async function forgetCookies(page: Page): Promise<void> {
  await page.goto('about:blank');
  await page.context().clearCookies();
}

/**
 * Platform's login page for a new person in this browser: nothing remembered of an address typed
 * before (the login page would go on with it by itself), once it has its login challenge.
 */
export async function freshLogin(page: Page, urls: SystemUrls): Promise<void> {
  await forgetCookies(page);
  await page.goto(`${urls.platform}/account/privacy`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${urls.platform}/`);
  await page.waitForURL(/login_challenge=/, T);
}

/** The Email step of the login page, in the page's language. */
export async function typeEmail(page: Page | Frame, texts: Texts, email: string): Promise<void> {
  await page.getByLabel(texts.login.email.emailLabel, { exact: true }).fill(email);
  await button(page, texts.common.continue).click();
}

/**
 * Logs out through /account/logout; with `check`, the user service's answer to the logout is held
 * while axe looks at the "Signing you out" screen.
 */
export async function signOut(
  page: Page,
  urls: SystemUrls,
  texts: Texts,
  check?: LanguageCheck,
): Promise<void> {
  const release = check ? await hold(page, '**/login/logout') : undefined;
  await page.goto(`${urls.platform}/account/logout`);
  if (check && release) {
    await check.screen('logging out', () => text(page, texts.progress.signingOut));
    await release();
  }
  await page.waitForURL(/\/account\/login/, T);
  await heading(page, texts.login.email.title);
}

/**
 * Holds the page's requests to `url` (a glob, pattern or test) until the answer is called: a screen
 * that shows only while such a request is on its way stays while axe looks at it. The browser's own
 * request is held, then sent as it was; the service's answer is its own. A request whose page has
 * left meanwhile is let go.
 */
export async function hold(
  page: Page,
  url: string | RegExp | ((url: URL) => boolean),
): Promise<() => Promise<void>> {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // Each held request is sent before the route goes (unroute would send them itself, then ours fail).
  const sent: Promise<void>[] = [];
  await page.route(url, (route) => {
    const send = held.then(() => route.continue()).catch(() => undefined);
    sent.push(send);
    return send;
  });
  return async () => {
    release();
    await Promise.all(sent);
    await page.unroute(url);
  };
}

/** The Terms step (both boxes, then Continue). */
export async function acceptTerms(page: Page, texts: Texts): Promise<void> {
  const boxes = page.getByRole('checkbox');
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await button(page, texts.common.continue).click();
}

/** The Teams host page (the stand-in's `query`), and MAGIC's frame in it. */
export async function teamsFrame(page: Page, urls: SystemUrls, query: string): Promise<Frame> {
  await page.goto(`${urls.teamsHost}?${query}`);
  const frame = await (await page.waitForSelector('iframe#app')).contentFrame();
  if (!frame) throw new Error('the Teams host page has no app frame');
  return frame;
}

/**
 * Signed out: MAGIC's Microsoft 365 sign-in page and its answer for a person without access; inside
 * Teams a failed sign-in, the landing page, the m365 login after logging out, and MAGIC's own
 * sign-in with its SSO step; Platform's page for a Microsoft 365 address.
 */
const microsoftScreens: Reacher = async (check, { page, urls, texts }) => {
  await check.screen('m365 login', async () => {
    await page.goto(`${urls.magic}/account/m365-login`);
    await heading(page, texts.m365.loginTitle);
    await text(page, fill(texts.m365.loginText, { appName: 'MAGIC' }));
  });
  await check.screen('m365: access not granted', async () => {
    const popup = page.waitForEvent('popup');
    await button(page, texts.common.continue).click();
    const entra = await popup;
    await entra.getByLabel('Email').fill('diego@contoso.test');
    await entra.getByLabel('Password').fill(DEMO_CONTOSO_PASSWORD);
    await entra.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, texts.m365.unauthorisedTitle);
  });
  let frame = await teamsFrame(page, urls, 'user=megan@contoso.test&fail=resourceDisabled');
  await check.screen('Teams: sign-in failed', () => heading(frame, texts.m365.errorTitle), frame);
  frame = await teamsFrame(page, urls, 'user=megan@contoso.test');
  await check.screen(
    'Teams: landing page',
    async () => {
      await frame.waitForURL(`${urls.magic}/research`, T);
      await frame.getByText(texts.research.signedInAs).first().waitFor(T);
    },
    frame,
  );
  // Teams no longer gives a token: logging out ends on the m365 login, which says why it can not sign in.
  await page.selectOption('#fail', 'CancelledByUser');
  await check.screen(
    'Teams: m365 login after logout',
    async () => {
      await frame.getByRole('link', { name: texts.research.logout }).click();
      await frame.waitForURL(`${urls.magic}/account/m365-login?isTeams=1`, T);
      await heading(frame, texts.m365.errorTitle);
      await frame.getByText('CancelledByUser').first().waitFor(T);
    },
    frame,
  );
  frame = await teamsFrame(page, urls, 'app=/');
  await check.screen('Teams: login', () => heading(frame, texts.login.email.title), frame);
  await check.screen(
    'Teams: SSO step (pop-up)',
    async () => {
      await typeEmail(frame, texts, 'hopper@globex.test');
      await button(frame, texts.login.sso.popupButton).waitFor(T);
      await text(frame, texts.login.sso.popupText);
    },
    frame,
  );
};

/**
 * Platform's page for a Microsoft 365 address, the SSO step after Cancel at the organisation's
 * provider, the SSO pop-up window's own page and the legal pages.
 */
const ssoScreens: Reacher = async (check, { page, urls, texts }) => {
  await check.screen('m365 address on Platform', async () => {
    await freshLogin(page, urls);
    await typeEmail(page, texts, 'megan@contoso.test');
    await heading(page, texts.login.m365Unavailable.title);
  });
  await button(page, texts.login.useAnotherEmail).click();
  await check.screen('SSO step', async () => {
    // The login page may remember the address typed in the Teams frame (same host) and go on by itself.
    const atProvider = (u: URL) => u.toString().startsWith(`${urls.orgIdp}/interaction/`);
    await page.goto(`${urls.platform}/`);
    await Promise.race([
      page.waitForURL(atProvider, T),
      page.getByLabel(texts.login.email.emailLabel, { exact: true }).waitFor(T),
    ]);
    if (!atProvider(new URL(page.url()))) await typeEmail(page, texts, 'hopper@globex.test');
    await page.waitForURL(atProvider, T);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/\/account\/login\?flow=/, T);
    await text(page, texts.login.sso.redirecting);
    await button(page, texts.login.sso.proceed).waitFor(T);
  });
  await check.screen('SSO pop-up without a provider', async () => {
    await page.goto(`${urls.platform}/account/sso-popup`);
    await text(page, texts.ssoPopup.noProvider);
  });
  await check.screen('terms of service', async () => {
    await page.goto(`${urls.platform}/account/terms`);
    await heading(page, texts.legal.termsTitle);
  });
  await check.screen('privacy notice', async () => {
    await page.goto(`${urls.platform}/account/privacy`);
    await heading(page, texts.legal.privacyTitle);
  });
};

/**
 * Self sign-up into a new open organisation: the form, the address's code, the password
 * confirmation, the terms, then the landing page.
 */
const selfSignUpScreens: Reacher = async (check, { page, urls, texts }) => {
  const tag = randomBytes(4).toString('hex');
  const domain = `screens-${tag}.test`;
  const org = await adminJson<{ id: string }>(`${urls.usersAdmin}/admin/organisations`, {
    method: 'POST',
    body: JSON.stringify({ name: `Screens ${tag}`, domains: [domain], products: ['Platform'] }),
  });
  await adminJson(`${urls.usersAdmin}/admin/organisations/${org.id}/self-signup`, {
    method: 'PUT',
    body: JSON.stringify({ enabled: true }),
  });
  const me = { email: `grace@${domain}`, password: `Screens-${tag}-2026!`, secret: '', backupCodes: [] };
  people.set(page, me);
  await check.screen('sign-up form', async () => {
    await freshLogin(page, urls);
    await typeEmail(page, texts, me.email);
    await page.getByRole('link', { name: texts.registration.signUpLink }).click(T);
    await heading(page, texts.registration.heading);
  });
  await page.getByLabel(texts.registration.firstNameLabel, { exact: true }).fill('Grace');
  await page.getByLabel(texts.registration.lastNameLabel, { exact: true }).fill('Hopper');
  await page.getByLabel(texts.registration.passwordLabel, { exact: true }).fill(me.password);
  await button(page, texts.registration.submit).click();
  await check.screen('sign-up: verification code', async () => {
    await heading(page, texts.verification.heading);
    await page.getByPlaceholder(texts.verification.placeholder).waitFor(T);
  });
  await page.getByPlaceholder(texts.verification.placeholder).fill(codeIn(await newestMail(urls, me.email)));
  await button(page, texts.common.continue).click();
  await check.screen('password confirmation', () => heading(page, texts.login.passwordConfirmation.title));
  await page.getByLabel(texts.login.password.passwordLabel, { exact: true }).fill(me.password);
  await button(page, texts.common.continue).click();
  await check.screen('sign-in terms', () => heading(page, texts.callbackOnboarding.finalStep));
  await acceptTerms(page, texts);
  await check.screen('landing page (research)', async () => {
    await page.waitForURL(`${urls.platform}/research`, { timeout: 45_000 });
    await text(page, me.email);
    await page.getByText(texts.research.signedInAs).first().waitFor(T);
  });
};

/** Signed in: 2FA set-up (install, backup codes, done) and the access-denied page. */
const secondFactorSetUpScreens: Reacher = async (check, { page, urls, texts }) => {
  const me = person(page);
  const install = page.getByLabel(texts.login.mfaSetup.installedCheckbox);
  await check.screen('2FA set-up', async () => {
    await page.goto(`${urls.platform}/account/mfa-setup`);
    await install.waitFor(T);
    await text(page, texts.login.mfaSetup.guidance);
  });
  me.secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
  await install.check();
  await check.screen('2FA set-up: code', () => page.getByLabel(texts.login.mfaSetup.codeLabel).waitFor(T));
  await page.getByLabel(texts.login.mfaSetup.codeLabel).pressSequentially(totpCode(me.secret));
  await check.screen('2FA set-up: backup codes', () => heading(page, texts.backupCodes.title));
  me.backupCodes = (await page.getByTestId('backup-codes').getByRole('listitem').allTextContents()).map((c) =>
    c.trim(),
  );
  await button(page, texts.backupCodes.saved).click();
  await check.screen('2FA set-up: done', () => heading(page, texts.mfaSetupScreen.successHeading));
  await check.screen('access denied', async () => {
    await page.goto(`${urls.platform}/account/access-denied`);
    await heading(page, texts.accessDenied.title);
  });
};

/** A device sign-in started as the research CLI starts it (RFC 8628): its verification_uri_complete. */
export async function deviceCode(urls: SystemUrls, clientId = 'research-cli'): Promise<string> {
  const res = await fetch(`${urls.oauth2Public}/oauth2/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, scope: 'openid' }),
  });
  if (!res.ok) throw new Error(`device authorization answered ${res.status}`);
  return ((await res.json()) as { verification_uri_complete: string }).verification_uri_complete;
}

/** Signed in: a device's code (entered, consent, connected) and another organisation's app asking to sign in. */
const consentScreens: Reacher = async (check, { page, urls, texts, consent }) => {
  const url = await deviceCode(urls);
  await check.screen('device: enter code', async () => {
    await page.goto(url);
    await heading(page, texts.device.heading);
  });
  await button(page, texts.common.continue).click();
  await check.screen('device: consent', async () => {
    await text(page, fill(texts.device.consentText, { client: 'Research CLI' }));
  });
  await button(page, texts.device.approve).click();
  await check.screen('device: connected', async () => {
    await heading(page, texts.device.approvedHeading);
    await text(page, texts.device.approved);
  });
  await check.screen('third-party consent', async () => {
    await page.goto(`${urls.demoApp}/`);
    await page.getByRole('link', { name: 'Sign in with the platform' }).click();
    await heading(page, fill(consent.title, { app: 'Demo third-party app' }));
  });
};

/** Signed out, the next sign-in asks for the second factor: the code step, then a backup code. */
const secondFactorScreens: Reacher = async (check, { page, urls, texts }) => {
  const me = person(page);
  await signOut(page, urls, texts, check);
  await typeEmail(page, texts, me.email);
  await page.getByLabel(texts.login.password.passwordLabel, { exact: true }).fill(me.password);
  await button(page, texts.common.continue).click();
  await check.screen('2FA code step', () => heading(page, texts.login.mfa.title));
  await button(page, texts.login.mfa.useBackupCode).click();
  await check.screen('backup code step', () => heading(page, texts.login.mfa.backupTitle));
  await page.getByLabel(texts.login.mfa.backupLabel, { exact: true }).fill(me.backupCodes[0] ?? '');
  await button(page, texts.common.continue).click();
  await page.waitForURL(`${urls.platform}/research`, T);
};

/** Invitation onboarding, signed out: set the password, the 2FA step, the terms; then "already signed in". */
const invitationScreens: Reacher = async (check, { page, urls, texts }) => {
  await signOut(page, urls, texts);
  const invited = await invite(urls);
  const password = `Invited-${randomBytes(6).toString('hex')}!1`;
  await check.screen('invitation: password', async () => {
    await page.goto(invited.link);
    await heading(page, texts.onboarding.passwordTitle);
  });
  await page.getByPlaceholder(texts.password.create).fill(password);
  await page.getByPlaceholder(texts.password.reenter).fill(password);
  await button(page, texts.common.continue).click();
  await check.screen('invitation: 2FA', () => heading(page, texts.login.mfaSetup.titleOnboarding));
  await button(page, texts.login.mfaSetup.skip).click();
  await check.screen('invitation: terms', () => heading(page, texts.onboarding.termsTitle));
  await acceptTerms(page, texts);
  const research = page.waitForURL(`${urls.platform}/research`, { timeout: 45_000 });
  const confirm = page.getByLabel(texts.login.password.passwordLabel, { exact: true });
  await Promise.race([research, confirm.waitFor({ timeout: 45_000 })]);
  if (await confirm.isVisible()) {
    await confirm.fill(password);
    await button(page, texts.common.continue).click();
    await research;
  }
  await check.screen('invitation: already signed in', async () => {
    await page.goto(invited.link);
    await heading(page, fill(texts.onboarding.alreadyLoggedIn, { email: invited.email }));
  });
};

/** A person of an organisation without a subscription signs in: the welcome page. */
const welcomeScreen: Reacher = async (check, { page, urls, texts }) => {
  await signOut(page, urls, texts);
  const member = await organisationWithMember(urls, { products: [], subscriptionStatus: 'not_subscribed' });
  await typeEmail(page, texts, member.email);
  await page.getByLabel(texts.login.password.passwordLabel, { exact: true }).fill(member.password);
  await button(page, texts.common.continue).click();
  await check.screen('welcome (no subscription)', async () => {
    await page.waitForURL(`${urls.platform}/welcome`, T);
    await heading(page, fill(texts.welcome.title, { app: 'Platform' }));
  });
};

/** In order: each leaves the browser where the next starts. */
export const remainingScreens: readonly Reacher[] = [
  microsoftScreens,
  ssoScreens,
  selfSignUpScreens,
  secondFactorSetUpScreens,
  consentScreens,
  secondFactorScreens,
  invitationScreens,
  welcomeScreen,
];
