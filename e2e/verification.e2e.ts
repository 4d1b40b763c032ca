import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { identityAdmin } from './fixtures.ts';
import { codeIn, newestMail } from './mailbox.ts';

describe('email verification, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a user verifies their email address with the emailed code and goes on to login', async () => {
    // An identity whose address is not verified yet, made through the identity admin API.
    const email = `unverified-${randomBytes(4).toString('hex')}@acme.test`;
    const identity = await identityAdmin(urls).createIdentity({
      schema_id: 'default',
      traits: {
        userServiceID: randomUUID(),
        email,
        name: { first: 'Una', last: 'Verified' },
        onboarding: {
          isGitUser: false,
          mfaSetupDeadline: new Date(Date.now() + 86_400_000).toISOString(),
          gitProviderConnected: false,
          tosAccepted: true,
        },
      },
    });
    expect(identity.verifiable_addresses?.[0]?.verified).toBe(false);

    const { context, page } = await browser.newPage();
    await page.goto(`${urls.platform}/account/verification`);
    await page.getByRole('heading', { name: 'Verify your email address' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();

    const code = codeIn(await newestMail(urls, email));
    const field = page.getByPlaceholder('XXXXXX');
    await field.waitFor();
    expect(await page.getByText('Enter the code you received via email to proceed.').isVisible()).toBe(true);
    await field.fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await context.close();

    const after = await identityAdmin(urls).getIdentity(identity.id);
    expect(after?.verifiable_addresses?.[0]?.verified).toBe(true);
  });
});
