import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { startOrgIdp, type OrgIdp } from '@acme/dev';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { acceptTermsIfAsked, signInAtProvider, walkToProvider } from './journeys.ts';
import { createOrgWithAdmin, operator, signInToConsole } from './operator.ts';

// SCIM provisioning (issue 26), end to end, on both targets: an org-admin creates a SCIM token and a
// group mapping in the admin console; a provisioning client sending what Microsoft Entra ID's
// provisioning service sends creates a person, who signs in by SSO (an OIDC provider stand-in of the
// organisation, as Globex's) to /research. The client renames them (the console shows it), puts them
// in a mapped group (their next token carries the scope group), then sets `active: false`: their
// session and refresh token stop at the next request. The admin revokes the token: the client's next
// call is 401.
//
// A throwaway organisation with its own provider (as e2e/admin-sso.e2e.ts does) rather than Globex:
// a token turns just-in-time creation off for its organisation, which e2e/sso.e2e.ts needs on for
// Globex, and Globex's stand-in knows only its two demo people.

const ROOT = resolve(import.meta.dirname, '..');
/** The user service's checked-in Entra ID requests (each naming its documentation; their README). */
const ENTRA_FIXTURES = join(ROOT, 'services/users/test/scim/fixtures/entra');
const SCIM_JSON = 'application/scim+json';
/** Screenshots for the note, when E2E_SCREENS names a folder. */
const SCREENS = process.env.E2E_SCREENS;

async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENS) return;
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
}

/** What the SCIM server answers, as far as the journey reads it. */
interface ScimAnswer {
  id?: string;
  active?: boolean;
  totalResults?: number;
  name?: { givenName?: string };
}

/** A SCIM client: one request with the token, as a provisioning service sends it. */
function scimClient(baseUrl: string, token: string) {
  return async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: ScimAnswer }> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: SCIM_JSON,
        ...(body === undefined ? {} : { 'content-type': SCIM_JSON }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as ScimAnswer };
  };
}

/**
 * Entra ID's provisioning service: replays `fixtures/entra/<name>.json` with `{{…}}` filled from
 * `vars` (read at each call, so ids learnt on the way count), the query string encoded as Entra does.
 */
function entraClient(scim: ReturnType<typeof scimClient>, vars: Record<string, string>) {
  return (name: string) => {
    const text = readFileSync(join(ENTRA_FIXTURES, `${name}.json`), 'utf8').replace(
      /\{\{(\w+)\}\}/g,
      (_, key: string) => {
        const value = vars[key];
        if (value === undefined) throw new Error(`fixture ${name}: no value for {{${key}}}`);
        return value;
      },
    );
    const fixture = JSON.parse(text) as { method: string; path: string; body?: unknown };
    const [path, query] = fixture.path.split('?') as [string, string | undefined];
    return scim(
      fixture.method,
      query === undefined ? path : `${path}?${new URLSearchParams(query).toString()}`,
      fixture.body,
    );
  };
}

interface StoredToken {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: number | null;
}

/** The app's stored token (a cookie the page's script reads, `oauth2_token`). */
const readStoredToken = (page: Page) =>
  page.evaluate(() => {
    const part = document.cookie
      .split(';')
      .map((c) => c.trim())
      .find((c) => c.startsWith('oauth2_token='));
    return part ? (JSON.parse(decodeURIComponent(part.slice('oauth2_token='.length))) as StoredToken) : null;
  });

/** Makes the stored token due, as time would: the app's next load renews it with the refresh token. */
async function makeTokenDue(page: Page): Promise<void> {
  const stored = await readStoredToken(page);
  if (!stored) throw new Error('no stored token');
  const due = encodeURIComponent(JSON.stringify({ ...stored, expiresAt: Date.now() - 1000 }));
  await page.evaluate((value) => {
    document.cookie = `oauth2_token=${value}; Path=/; SameSite=Lax`;
  }, due);
}

/** The token's `ext` as the research page shows it. */
async function tokenExt(
  page: Page,
): Promise<{ user?: { name?: string; email?: string }; scopeGroups?: string[] }> {
  return JSON.parse((await page.getByTestId('token-ext').textContent()) ?? '{}');
}

/** The app's next token: the stored one made due, and the page loaded again (the app refreshes). */
async function nextToken(page: Page): Promise<void> {
  const before = await readStoredToken(page);
  expect(before?.accessToken).toMatch(/^ey/);
  await makeTokenDue(page);
  await page.reload();
  await page.getByTestId('token-ext').waitFor({ timeout: 30_000 });
  expect((await readStoredToken(page))?.accessToken).not.toBe(before?.accessToken);
}

/** The refresh grant as the app sends it (public client, no secret). */
async function refresh(urls: SystemUrls, refreshToken: string): Promise<number> {
  const res = await fetch(`${urls.oauth2Public}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'platform',
    }),
  });
  return res.status;
}

describe('SCIM provisioning, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  let idp: OrgIdp | undefined;
  afterAll(async () => idp?.close());

  it('a token made in the console provisions a person who signs in by SSO, follows the directory, and is cut off at once', async () => {
    const tag = randomBytes(4).toString('hex');
    const domain = `scim-${tag}.test`;
    const provider = `scim-${tag}`;
    const admin = {
      email: `admin@${domain}`,
      password: `Console-${tag}-2026!`,
      firstName: 'Olga',
      scopeGroups: 'research',
    };
    const person = { email: `pat@${domain}`, password: `Pat-${tag}-2026!` };
    const tokenName = 'Entra ID provisioning';
    const group = 'Quant researchers';

    // The operator creates the organisation and its org-admin (who holds the scope group `research`,
    // so the organisation has it to map).
    const orgId = await createOrgWithAdmin(urls, { name: `SCIM ${tag}`, domain }, admin);

    // The org-admin opens Provisioning (SCIM) and creates a token.
    const adminTab = await browser.newPage();
    const ada = adminTab.page;
    await signInToConsole(ada, urls, admin, '/admin/scim');
    await ada.getByRole('heading', { name: 'Provisioning (SCIM)', level: 2 }).waitFor({ timeout: 30_000 });
    await ada.getByText('No tokens yet.').waitFor();
    const baseUrl = (await ada.getByTestId('scim-base-url').textContent())!;
    expect(baseUrl).toBe(`${urls.usersPublic}/scim/v2`);
    expect(await seriousViolations(ada)).toEqual([]);

    await ada.getByLabel('Name', { exact: true }).fill(tokenName);
    await ada.getByLabel('Name', { exact: true }).press('Enter');
    const token = (await ada.getByTestId('scim-token').textContent())!;
    expect(token.length).toBeGreaterThan(20);
    await ada.getByText("You won't see it again").waitFor();
    const row = ada.getByRole('row').filter({ hasText: tokenName });
    await row.getByText('Never').waitFor({ timeout: 30_000 });
    await ada.getByText('Provisioning is on').waitFor();
    expect(await seriousViolations(ada)).toEqual([]);
    await ada.getByRole('button', { name: 'I have copied the token' }).click();
    expect(await ada.content()).not.toContain(token);

    // The group mapping: "Quant researchers" → Member with the scope group research.
    await ada.getByRole('button', { name: 'Add a mapping' }).click();
    const mapping = ada.getByRole('group', { name: 'Mapping 1' });
    await mapping.getByLabel('Directory group').fill(group);
    await mapping.getByLabel('Other scope groups (separated by commas)').fill('research');
    await ada.getByRole('button', { name: 'Save group mapping' }).click();
    await ada.getByText('Group mapping saved.').waitFor({ timeout: 30_000 });
    await shot(ada, 'scim-console');
    if (SCREENS)
      await ada
        .getByRole('form', { name: 'Group mapping' })
        .screenshot({ path: `${SCREENS}/scim-mapping.png` });

    // The organisation signs in through its own provider; nobody is created just in time.
    idp = await startOrgIdp({
      port: 0,
      users: [{ email: person.email, password: person.password, givenName: 'Pat', familyName: 'Member' }],
    });
    const clientSecret = randomBytes(16).toString('hex');
    idp.setClient({
      clientId: `acme-${tag}`,
      clientSecret,
      redirectUris: [`${urls.identityPublic}/self-service/methods/oidc/callback/${provider}`],
    });
    await operator(urls, [
      'sso:set',
      '--org',
      orgId,
      '--issuer',
      idp.issuer,
      '--client-id',
      `acme-${tag}`,
      '--client-secret',
      clientSecret,
      '--jit',
      'off',
    ]);

    // The provisioning client sends what Entra's does: look the person up, then create them.
    const scim = scimClient(baseUrl, token);
    const vars: Record<string, string> = {
      userName: person.email,
      externalId: randomUUID(),
      groupName: group,
    };
    const entra = entraClient(scim, vars);
    expect(await entra('01-get-user-by-query-zero-results')).toMatchObject({
      status: 200,
      body: { totalResults: 0 },
    });
    const created = await entra('02-create-user');
    expect(created.status).toBe(201);
    vars.userId = String(created.body.id);

    // They sign in by SSO to /research.
    const pat = await browser.newPage();
    await walkToProvider(pat.page, urls, person.email, `${idp.issuer}/interaction/`);
    await signInAtProvider(pat.page, `${idp.issuer}/interaction/`, person);
    await acceptTermsIfAsked(pat.page, (u) => u.toString() === `${urls.platform}/research`);
    await pat.page.getByTestId('token-ext').waitFor({ timeout: 30_000 });
    expect((await tokenExt(pat.page)).user?.email).toBe(person.email);
    expect((await tokenExt(pat.page)).scopeGroups ?? []).not.toContain('research');

    // The directory renames them (Entra's value-object PATCH); the console shows the new name.
    const renamed = await entra('06-update-user-value-object-dotted');
    expect(renamed.status).toBe(200);
    expect(renamed.body.name?.givenName).toBe('Ada');
    await ada.goto(`${urls.apps.admin}/admin/members`);
    await ada.getByLabel('Search by name or email').fill(person.email);
    await ada.getByRole('button', { name: 'Search' }).click();
    await ada.getByRole('link', { name: 'Ada Lovelace' }).click();
    await ada.getByRole('heading', { name: 'Ada Lovelace', level: 2 }).waitFor({ timeout: 30_000 });
    // The mapping sets roles, so the directory manages Ada's: no role control here.
    await ada.getByText('Managed by your directory').first().waitFor();
    expect(await ada.getByRole('button', { name: 'Change role' }).count()).toBe(0);
    await shot(ada, 'scim-managed-member');
    expect(await seriousViolations(ada)).toEqual([]);

    // The directory puts them in the mapped group (Entra: create the group, then add members).
    const groupCreated = await entra('07-create-group');
    expect(groupCreated.status).toBe(201);
    vars.groupId = String(groupCreated.body.id);
    expect([200, 204]).toContain((await entra('09-update-group-add-members')).status);
    await nextToken(pat.page);
    const ext = await tokenExt(pat.page);
    expect(ext.scopeGroups).toContain('research');
    expect(ext.user?.name).toBe('Ada Lovelace');

    // Deactivated by the directory (Entra's string form): cut off at the next request.
    const last = await readStoredToken(pat.page);
    const refreshToken = last?.refreshToken;
    expect(refreshToken).toBeTruthy();
    const whoamiUrl = `${urls.identityPublic}/sessions/whoami`;
    expect((await pat.page.request.get(whoamiUrl)).status()).toBe(200);
    const deactivated = await entra('12-disable-user-string-false');
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect((await pat.page.request.get(whoamiUrl)).status()).toBe(401);
    expect(await refresh(urls, refreshToken!)).not.toBe(200);
    // The open page, loaded again once its token is due (a moment after the SSO sign-in, whose
    // application-login lock the callback released): the app's refresh is refused and the new
    // authorization starts at once. The authorization server still remembers Pat's login, but its
    // identity session ended: it asks for a login again, and the sign-in page says why.
    await makeTokenDue(pat.page);
    const refused = pat.page.waitForResponse((r) => r.url() === `${urls.oauth2Public}/oauth2/token`);
    await pat.page.reload();
    expect((await refused).status()).toBe(400);
    await pat.page.waitForURL((u) => u.toString().startsWith(`${urls.platform}/account/login`), {
      timeout: 30_000,
    });
    await pat.page
      .getByText("Your account is deactivated. Please contact your organisation's administrator.")
      .waitFor({ timeout: 30_000 });
    await pat.page.getByLabel('Email').waitFor();
    expect(pat.page.url()).not.toContain('/account/consent');
    expect(await pat.page.getByTestId('token-ext').count()).toBe(0);
    expect([null, last?.accessToken]).toContain((await readStoredToken(pat.page))?.accessToken ?? null);
    await pat.context.close();

    // The admin revokes the token: the directory's next call is refused.
    await ada.goto(`${urls.apps.admin}/admin/scim`);
    // Its last use is on the list now.
    const tokenRow = ada.getByRole('row').filter({ hasText: tokenName });
    await tokenRow.waitFor({ timeout: 30_000 });
    expect(await tokenRow.getByText('Never').count()).toBe(0);
    // By keyboard: Enter on Revoke opens the dialog with the focus on Cancel; Shift+Tab, Enter revokes.
    await ada.getByRole('button', { name: `Revoke ${tokenName}` }).focus();
    await ada.keyboard.press('Enter');
    await ada.getByRole('alertdialog').waitFor();
    expect(await ada.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    expect(await seriousViolations(ada)).toEqual([]);
    await ada.keyboard.press('Shift+Tab');
    expect(await ada.evaluate(() => document.activeElement?.textContent)).toBe('Yes, revoke');
    await ada.keyboard.press('Enter');
    await ada.getByText(`Token ${tokenName} revoked.`).waitFor();
    expect((await scim('GET', '/Users?count=1')).status).toBe(401);
    await adminTab.context.close();
  }, 240_000);
});
